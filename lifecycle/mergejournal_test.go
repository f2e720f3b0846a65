package lifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/harness"
)

// gateJournal gives l a journal on the test's Redis.
func gateJournal(t *testing.T, l *Lifecycle) *effects.Journal {
	rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: harness.RedisDB(t)})
	t.Cleanup(func() { rdb.Close() })
	l.Effects = effects.New(rdb)
	return l.Effects
}

func (g *gateGH) evaluateErr(l *Lifecycle) error {
	return l.PR(context.Background(), jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: 3, SHA: gateHead, Action: "checks"})
}

const mergeIntent = "merge:" + gateRepo + "#3:" + gateHead

// #38, bad input: a merge answered 200 without "merged": true is not a
// merge. The intent stays unconfirmed and the evaluation fails (retried);
// the next evaluation merges and only GitHub's "merged" confirms it.
func TestMergeAnswerWithoutMergedIsNotDone(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	l := g.lifecycle()
	j := gateJournal(t, l)
	g.rules.refusals = append(g.rules.refusals, gateRefusal{200, `{"sha":null,"merged":false,"message":"Pull Request is not mergeable"}`})
	if err := g.evaluateErr(l); err == nil {
		t.Fatal("an answer that does not say merged ended the evaluation as if merged")
	}
	if done, _ := j.Done(context.Background(), mergeIntent); done {
		t.Fatal("the merge counts as done on an answer that does not say merged")
	}
	if n, _ := j.Sweep(context.Background(), time.Now().Add(time.Hour), 0, func(context.Context, effects.Intent) error { return nil }); n != 1 {
		t.Fatalf("%d intents left for the sweeper, want the merge's", n)
	}
	g.evaluate(t, l)
	if done, _ := j.Done(context.Background(), mergeIntent); !done || g.mergeCalls() != 2 {
		t.Fatalf("after GitHub's merge: done %v, %d merge calls (want confirmed, 2)", done, g.mergeCalls())
	}
}

// A merge whose answer was lost (GitHub merged, the client saw a 502) is
// confirmed by the re-driven evaluation, which reads the PR merged: no
// second merge call, nothing left for the sweeper.
func TestLostMergeAnswerIsConfirmedByTheReRead(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	l := g.lifecycle()
	j := gateJournal(t, l)
	g.rules.refusals = append(g.rules.refusals, gateRefusal{502, `{"message":"Server Error"}`})
	if err := g.evaluateErr(l); err == nil {
		t.Fatal("a lost answer ended the evaluation")
	}
	g.mu.Lock()
	g.pull["state"], g.pull["merged"] = "closed", true // what GitHub did behind the 502
	g.mu.Unlock()
	g.evaluate(t, l) // the sweeper's re-drive is an evaluation of the PR
	if done, _ := j.Done(context.Background(), mergeIntent); !done || g.mergeCalls() != 1 {
		t.Fatalf("after the re-read: done %v, %d merge calls (want confirmed, 1)", done, g.mergeCalls())
	}
	if n, _ := j.Sweep(context.Background(), time.Now().Add(time.Hour), 0, func(context.Context, effects.Intent) error { return nil }); n != 0 {
		t.Fatalf("%d intents still pending after the PR was read merged", n)
	}
}

// Bound tells the follow-up runner that Warden left the PR to GitHub's
// merging: on once a queue or auto-merge binding is confirmed, off once
// taken back.
func TestBoundFollowsTheConfirmedBindings(t *testing.T) {
	l, ctx := &Lifecycle{Counter: &memCounter{}}, context.Background()
	x := &pr{PullRequest: &github.PullRequest{Number: github.Int(3)}, owner: "acme", name: "calc", issue: 7}
	if on, _ := l.Bound(ctx, "acme/calc", 7, 3); on {
		t.Fatal("bound before any binding")
	}
	_, _ = l.Counter.Incr(ctx, bindKey(x, "automerge"))
	if on, _ := l.Bound(ctx, "acme/calc", 7, 3); !on {
		t.Fatal("auto-merge on does not count as bound")
	}
	_, _ = l.Counter.Incr(ctx, bindKey(x, "automerge-off"))
	if on, _ := l.Bound(ctx, "acme/calc", 7, 3); on {
		t.Fatal("still bound after auto-merge was taken back")
	}
}
