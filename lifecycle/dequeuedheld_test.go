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

// #38, found by the interleaving test once its evaluations' retries ran
// out as asynq's do: the merge queue removed a PR that was then held (or
// busy with feedback); the "dequeued" evaluation took the PR back from a
// queue it had left — GitHub answers "not in the merge queue" — before it
// recorded the removal, so it failed on every retry and the take-back
// stayed unconfirmed for good. GitHub's removal is recorded first.
func TestDequeuedWhileHeldRecordsTheRemovalFirst(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.requireQueue()
	l := g.lifecycle()
	l.Followups = followup.NewStore(redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: harness.RedisDB(t)}))
	g.evaluate(t, l) // queued: bound to the queue
	if _, err := l.Followups.HoldSince(context.Background(), gateRepo, 3, "bob", time.Now()); err != nil {
		t.Fatal(err)
	}
	n := len(g.rules.graphql)
	if err := l.PR(context.Background(), jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: 3, SHA: gateHead, Action: "dequeued", Reason: "dequeued"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range g.rules.graphql[n:] {
		if strings.Contains(q, "dequeuePullRequest") {
			t.Fatalf("took back from the queue a PR GitHub had removed: %q", g.rules.graphql[n:])
		}
	}
}
