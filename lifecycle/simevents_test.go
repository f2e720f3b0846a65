package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/webhooks"
)

// The interleaving test's webhooks: each event reaches Warden as GitHub
// sends it (a real payload's shape, through the router), so the router's
// permission checks, holds and enqueues are part of every interleaving.

// delivery is one webhook as GitHub would send (and resend) it.
type delivery struct {
	event string
	body  []byte
	retry bool // a writer's `/warden retry` on the PR
}

func (s *sim) deliver(ctx context.Context, d delivery) {
	var dec webhooks.Decision
	var err error
	clean := s.wk.cut < 0
	s.outage(func() { // a Redis restart armed for this delivery (simredis_test.go)
		dec, err = s.router.Route(ctx, webhooks.Delivery{Event: d.event, ID: fmt.Sprint(s.rng.Int63()), Payload: d.body})
	})
	if err != nil {
		s.note("  %s answered 5xx: redelivered later", d.event)
		s.redeliver = append(s.redeliver, d)
		s.count(d.event + " 5xx")
		return
	}
	s.count(d.event + " " + dec.Status)
	s.sawHold(ctx)
	if d.retry && clean {
		s.handBackSettled(ctx)
	}
	if strings.HasPrefix(d.event, "pull_request_review") {
		s.followupQueued(ctx, d.event)
	}
}

// tick is the sim's GitHub clock: each timed event a second after the last.
func (s *sim) tick() string {
	s.clock = s.clock.Add(time.Second)
	return s.clock.Format(time.RFC3339)
}

// count tallies what the seeds exercised, for the test's closing log.
func (s *sim) count(what string) { s.stats[what]++ }

// send delivers a new event; GitHub sends some twice.
func (s *sim) send(ctx context.Context, event string, m map[string]any) {
	b, _ := json.Marshal(m)
	s.post(ctx, delivery{event: event, body: b})
}

// post delivers d; GitHub sends some twice.
func (s *sim) post(ctx context.Context, d delivery) {
	s.deliver(ctx, d)
	if s.rng.Intn(4) == 0 {
		s.redeliver = append(s.redeliver, d)
	}
}

// fixture is a real payload of this installation, sent by sender.
func (s *sim) fixture(name, sender string) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(harness.Fixture(s.t, "webhooks/"+name), &m)
	m["installation"] = map[string]any{"id": inst}
	obj(m, "sender")["login"] = sender
	return m
}

// ownPull makes a payload's pull request Warden's PR at head.
func (s *sim) ownPull(pr map[string]any, head string) {
	pr["number"], pr["state"], pr["body"] = s.pr, "open", s.prBody()
	obj(pr, "user")["login"] = fakegithub.BotLogin
	obj(pr, "head")["ref"], obj(pr, "head")["sha"] = s.branch, head
}

func (s *sim) prBody() string {
	return fmt.Sprintf("Fixes #%d\n%s", s.issue, pipeline.PRMarker("warden", s.issue, "maintenance"))
}

// inline is a new inline review comment by a writer, part of review (0:
// a lone comment).
func (s *sim) inline(ctx context.Context, review int64) delivery {
	id := s.gh.AddReviewComment(repo, s.pr, review, "alice", "fix.txt", 1, "@@ -1 +1 @@", "please change this")
	m := s.fixture("pull_request_review_comment.created.json", "alice")
	c := obj(m, "comment")
	c["id"], c["body"], c["pull_request_review_id"] = id, "please change this", review
	c["path"], c["commit_id"] = "fix.txt", s.head() // as the fake holds it: a reply must name its comment's path
	obj(c, "user")["login"] = "alice"
	s.ownPull(obj(m, "pull_request"), s.head())
	if !s.merged {
		s.comments[id] = true
	}
	s.note("inline comment %d (review %d)", id, review)
	if review == 0 {
		s.send(ctx, "pull_request_review_comment", m)
	}
	b, _ := json.Marshal(m)
	return delivery{event: "pull_request_review_comment", body: b}
}

// review is a writer's "request changes" with a body and up to two inline
// comments, whose own deliveries come before or after the review's (or
// only as redeliveries): one review must make one follow-up answer each.
func (s *sim) review(ctx context.Context, i int) {
	id := s.gh.AddReview(repo, s.pr, "alice", "CHANGES_REQUESTED", s.head())
	var late []delivery
	for range s.rng.Intn(3) {
		late = append(late, s.inline(ctx, id))
	}
	m := s.fixture("pull_request_review.submitted.json", "alice")
	rv := obj(m, "review")
	rv["id"], rv["state"], rv["body"], rv["commit_id"] = id, "changes_requested", "please rework this", s.head()
	obj(rv, "user")["login"] = "alice"
	s.ownPull(obj(m, "pull_request"), s.head())
	s.note("%d review %d with %d inline comments", i, id, len(late))
	s.send(ctx, "pull_request_review", m)
	for _, d := range late {
		if s.rng.Intn(2) == 0 {
			s.deliver(ctx, d)
		} else {
			s.redeliver = append(s.redeliver, d)
		}
	}
}

// humanPush is a maintainer's commit on the branch, announced by
// synchronize: Warden must never push over it.
func (s *sim) humanPush(ctx context.Context, i int) {
	sha := s.commit("human")
	s.human = append(s.human, sha)
	s.handedOver, s.holdSeen = true, false
	s.queueDropsOnPush(ctx)
	m := s.fixture("pull_request.synchronize.json", "bob")
	s.ownPull(obj(m, "pull_request"), sha)
	obj(m, "pull_request")["updated_at"] = s.tick() // GitHub's time of the push
	s.pushedAt = s.clock
	m["number"], m["after"] = s.pr, sha
	s.note("%d human push %s", i, sha[:7])
	s.send(ctx, "pull_request", m)
}

// prRetry is a writer's `/warden retry` on the PR: it lifts a hold.
func (s *sim) prRetry(ctx context.Context, i int) {
	m := s.fixture("issue_comment.created.json", "alice")
	is := obj(m, "issue")
	is["number"], is["body"], is["state"] = s.pr, s.prBody(), "open"
	is["pull_request"] = map[string]any{"url": fmt.Sprintf("https://api.github.com/repos/%s/pulls/%d", repo, s.pr)}
	obj(is, "user")["login"] = fakegithub.BotLogin
	c := obj(m, "comment")
	c["id"], c["body"], c["created_at"] = s.rng.Int63n(1<<40), "/warden retry", s.tick()
	s.retriedAt = s.clock
	obj(c, "user")["login"] = "alice"
	s.note("%d /warden retry on the PR", i)
	s.handedOver, s.holdSeen = false, false
	b, _ := json.Marshal(m)
	s.post(ctx, delivery{event: "issue_comment", body: b, retry: true})
}

// handBackSettled: a retry's delivery answered 2xx without a Redis
// restart has queued the hand-back a released hold owed, itself (the
// sweeper is the backstop for a delivery that died, not for one GitHub
// was told succeeded). A redelivery after a 5xx that came after the
// release must finish it, not answer "not held". (A branch held again by
// a later push keeps an earlier release's debt: not this invariant's.)
func (s *sim) handBackSettled(ctx context.Context) {
	by, err := s.store.Held(ctx, repo, s.pr)
	if err != nil || by != "" {
		return
	}
	if owed, err := s.store.HandBackOwed(ctx, repo, s.pr); err == nil && owed {
		s.broken = append(s.broken, "a `/warden retry` answered 2xx left the released branch's hand-back owed")
	}
}

// checkEvent is a check run completing on the head, mostly green.
func (s *sim) checkEvent(ctx context.Context, i int) {
	concl := "success"
	if s.rng.Intn(6) == 0 {
		concl = "failure"
	}
	s.checkDone(ctx, i, concl)
}

// checkDone is the head's check run completing with concl.
func (s *sim) checkDone(ctx context.Context, i int, concl string) {
	head := s.head()
	s.gh.SetCheckRun(repo, head, "ci", "completed", concl)
	s.checks[head] = concl
	m := s.fixture("check_run.completed.json", "alice")
	cr := obj(m, "check_run")
	cr["head_sha"], cr["conclusion"], cr["status"] = head, concl, "completed"
	cr["pull_requests"] = []any{map[string]any{"number": s.pr, "head": map[string]any{"ref": s.branch, "sha": head}}}
	s.note("%d check %s on %s", i, concl, head[:7])
	s.send(ctx, "check_run", m)
}

// EnqueuePR fails on demand too: a 5xx answer to a check or push event.
func (f *flakyQueue) EnqueuePR(ctx context.Context, p jobs.PRPayload) error {
	if f.fail() {
		return fmt.Errorf("injected 503")
	}
	return f.Queue.EnqueuePR(ctx, p)
}

func (e *simEnv) tally() string {
	keys := slices.Sorted(maps.Keys(e.stats))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%s=%d", k, e.stats[k])
	}
	return strings.Join(out, ", ")
}
