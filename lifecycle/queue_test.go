package lifecycle

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/harness"
)

func (g *gateGH) requireQueue() {
	g.ruleset("merge_queue", map[string]any{"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
		"max_entries_to_merge": 5, "merge_method": "SQUASH", "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5})
}

func (g *gateGH) enqueues() int { return g.calls(0, "enqueuePullRequest") }

// calls counts the GraphQL requests since the since-th that name what.
func (g *gateGH) calls(since int, what string) int {
	n := 0
	for _, q := range g.rules.graphql[since:] {
		if strings.Contains(q, what) {
			n++
		}
	}
	return n
}

// greenQueued is a green PR whose branch requires the merge queue; auto:
// the queue refuses it and the repository allows auto-merge.
func greenQueued(t *testing.T, auto bool) *gateGH {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.requireQueue()
	if auto {
		g.autoMergeInstead(t)
	}
	return g
}

// #38 (1): one failed enqueue must not strand the PR. The first call meets
// GitHub's GraphQL error shape (a 5xx behind the API answers so); the next
// evaluation of the same head enqueues again instead of logging "already in
// the merge queue".
func TestFailedEnqueueIsRetried(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.requireQueue()
	l := g.lifecycle()
	g.rules.gqlAnswer = `{"data":{"enqueuePullRequest":null},"errors":[{"type":"INTERNAL","path":["enqueuePullRequest"],"message":"Something went wrong while executing your query. Please include ` + "`ABCD:1234`" + ` when reporting this issue."}]}`
	g.evaluate(t, l)
	g.rules.gqlAnswer = ""
	all := g.evaluate(t, l)
	if g.enqueues() != 2 || !strings.Contains(all, "is in the merge queue") {
		t.Fatalf("enqueue calls %d (want 2: the failed one, then again), comments %q", g.enqueues(), all)
	}
	g.evaluate(t, l) // confirmed now: once per head
	if g.enqueues() != 2 {
		t.Fatalf("enqueue calls %d after a confirmed enqueue, want 2", g.enqueues())
	}
}

// An answer Warden cannot interpret (no entry, no error) is not a
// confirmation: the next evaluation asks again.
func TestUninterpretableEnqueueIsNotConfirmed(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.requireQueue()
	l := g.lifecycle()
	g.rules.gqlAnswer = `{"data":{"enqueuePullRequest":{"mergeQueueEntry":null}}}`
	g.evaluate(t, l)
	g.rules.gqlAnswer = ""
	g.evaluate(t, l)
	if g.enqueues() != 2 {
		t.Fatalf("enqueue calls %d, want 2", g.enqueues())
	}
}

// The queue dropped the PR: a later evaluation of the same head (a
// maintainer's retry) enqueues it again.
func TestDequeuedHeadCanBeEnqueuedAgain(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.requireQueue()
	l := g.lifecycle()
	g.evaluate(t, l)
	if err := l.PR(context.Background(), jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: 3, SHA: gateHead, Action: "dequeued", Reason: "dequeued"}); err != nil {
		t.Fatal(err)
	}
	g.evaluate(t, l)
	if g.enqueues() != 2 {
		t.Fatalf("enqueue calls %d, want 2 (the queue dropped the first)", g.enqueues())
	}
}

// #38 suspected: a hold after the enqueue takes the PR out of the merge
// queue (dequeuePullRequest) and a hold after auto-merge turns it off
// (disablePullRequestAutoMerge): GitHub must not merge behind the hold.
func TestHoldTakesThePRBackFromGitHub(t *testing.T) {
	for _, auto := range []bool{false, true} {
		g := newGateGH(t)
		g.run("ci", "completed", "success")
		g.requireQueue()
		if auto {
			g.autoMergeInstead(t)
		}
		l := g.lifecycle()
		l.Followups = followup.NewStore(redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: harness.RedisDB(t)}))
		g.evaluate(t, l)
		if _, err := l.Followups.HoldSince(context.Background(), gateRepo, 3, "bob", time.Now()); err != nil {
			t.Fatal(err)
		}
		g.evaluate(t, l)
		want := "dequeuePullRequest"
		if auto {
			want = "disablePullRequestAutoMerge"
		}
		last := g.rules.graphql[len(g.rules.graphql)-1]
		if !strings.Contains(last, want) {
			t.Fatalf("auto-merge %v: GraphQL calls %q, want %s after the hold", auto, g.rules.graphql, want)
		}
		n := len(g.rules.graphql)
		g.evaluate(t, l) // confirmed: not asked again
		if len(g.rules.graphql) != n {
			t.Fatalf("auto-merge %v: taken back twice: %q", auto, g.rules.graphql)
		}
	}
}

// Found by the final soak (seed 1030): feedback that arrives during an
// evaluation of a PR under auto-merge (after the branch work, before the
// merge) stops the merge at the re-check, and must also turn auto-merge
// off: GitHub would otherwise merge behind the feedback.
func TestFeedbackDuringTheEvaluationTakesThePRBack(t *testing.T) {
	g := greenQueued(t, true)
	l := g.lifecycle()
	l.Followups = followup.NewStore(redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: harness.RedisDB(t)}))
	g.evaluate(t, l)   // auto-merge on
	g.onGQL = func() { // the head's read in maybeMerge: the branch work has passed
		if _, err := l.Followups.Add(context.Background(), gateRepo, 3, followup.Item{Kind: followup.KindComment, ID: 71, Author: "alice", Body: "wait"}); err != nil {
			t.Error(err)
		}
	}
	g.rules.gqlAnswer = ""
	g.evaluate(t, l)
	if last := g.rules.graphql[len(g.rules.graphql)-1]; !strings.Contains(last, "disablePullRequestAutoMerge") {
		t.Fatalf("GraphQL calls %q: feedback during the evaluation left auto-merge on", g.rules.graphql)
	}
}

// autoMergeInstead makes the repository allow auto-merge and its queue
// refuse Warden's PR (the last pusher may not approve): Warden enables
// auto-merge instead of enqueueing.
func (g *gateGH) autoMergeInstead(t *testing.T) {
	repo := gateFixture(t, "pull_request.synchronize.json")["repository"].(map[string]any)
	repo["allow_auto_merge"] = true
	g.rules.repo = repo
	g.rules.gqlAnswer = `{"data":{"enqueuePullRequest":null},"errors":[{"type":"UNPROCESSABLE","path":["enqueuePullRequest"],"message":"Pull request New changes require approval from someone other than warden-test[bot] because they were the last pusher."}]}`
}
