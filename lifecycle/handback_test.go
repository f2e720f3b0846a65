package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/webhooks"
)

// downQueue is the router's queue while Redis answers the PR enqueue 503.
type downQueue struct{ *catcher }

func (downQueue) EnqueuePR(context.Context, jobs.PRPayload) error {
	return errors.New("503 Service Unavailable")
}

type retryWriter struct{}

func (retryWriter) Permission(_ context.Context, _ int64, _, _, user string) (string, error) {
	if user == "alice" {
		return "write", nil
	}
	return "read", nil
}

// queuedEval reports whether an evaluation of PR n is queued.
func (w *world) queuedEval(n int) bool {
	w.t.Helper()
	for _, qn := range []string{jobs.QueueCritical, jobs.QueueDefault} {
		tasks, _ := w.queue.Inspector().ListPendingTasks(qn)
		for _, ti := range tasks {
			var p jobs.PRPayload
			if json.Unmarshal(ti.Payload, &p) == nil && p.PR == n && p.Repo == repo && p.Action != "" {
				return true
			}
		}
	}
	return false
}

// #38 (3): a writer's `/warden retry` lifts the hold, then its enqueue
// fails (503) and GitHub never redelivers the webhook. The hand-back is
// an effects intent: the sweep queues its work and clears the debt.
func TestFailedHandBackIsQueuedBySweep(t *testing.T) {
	w, ctx := newWorld(t), context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: harness.RedisDB(t)})
	t.Cleanup(func() { rdb.Close() })
	store, j := followup.NewStore(rdb), effects.New(rdb)
	w.life.Followups, w.life.Effects = store, j
	w.router = &webhooks.Router{Prefix: "warden", Queue: downQueue{w.caught}, App: w.router.App, Log: quiet, Followups: store, Perms: retryWriter{}}
	n, _ := w.openPR(3, "maintenance")
	t0 := time.Now().Add(-time.Hour)
	if _, err := store.HoldSince(ctx, repo, n, "bob", t0); err != nil {
		t.Fatal(err)
	}
	b := retryComment(t, n, t0.Add(time.Minute))
	if _, err := w.router.Route(ctx, webhooks.Delivery{Event: "issue_comment", ID: "d-retry", Payload: b}); err == nil {
		t.Fatal("the failed enqueue was not reported to GitHub")
	}
	if by, _ := store.Held(ctx, repo, n); by != "" || w.queuedEval(n) {
		t.Fatalf("held by %q, evaluation queued %v: the test's retry did not release and fail", by, w.queuedEval(n))
	}
	if _, err := w.life.SweepEffects(ctx, time.Now().Add(time.Hour), 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if !w.queuedEval(n) {
		t.Fatal("the owed hand-back is not queued by the sweep")
	}
	if owed, _ := store.HandBackOwed(ctx, repo, n); owed {
		t.Fatal("the hand-back is still owed after the sweep queued it")
	}
	if done, _ := j.Done(ctx, effects.HandBackKey(repo, n)); !done {
		t.Fatal("the hand-back's intent is not confirmed")
	}
}

// retryComment is a writer's `/warden retry` on Warden's PR n written at.
func retryComment(t *testing.T, n int, at time.Time) []byte {
	t.Helper()
	var m map[string]any
	_ = json.Unmarshal(harness.Fixture(t, "webhooks/issue_comment.created.json"), &m)
	m["installation"] = map[string]any{"id": inst}
	obj(m, "sender")["login"] = "alice"
	is := obj(m, "issue")
	is["number"], is["state"] = n, "open"
	is["body"] = "Fixes #3\n<!-- warden:pr {\"issue\":3,\"mode\":\"maintenance\"} -->"
	is["pull_request"] = map[string]any{"url": "https://api.github.com/repos/" + repo + "/pulls/1"}
	obj(is, "user")["login"] = fakegithub.BotLogin
	c := obj(m, "comment")
	c["id"], c["body"], c["created_at"] = 4242, "/warden retry", at.UTC().Format(time.RFC3339)
	obj(c, "user")["login"] = "alice"
	b, _ := json.Marshal(m)
	return b
}
