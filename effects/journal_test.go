package effects

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/test/harness"
)

// An intent is done only once confirmed; an unconfirmed one (a kill
// between the call and the answer, an answer Warden could not read) is
// re-driven by the sweep after the quiet period, once per period, until
// it is confirmed.
func TestJournalConfirmsAndSweepsTheUnconfirmed(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: harness.RedisDB(t)})
	t.Cleanup(func() { rdb.Close() })
	j, ctx := New(rdb), context.Background()
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	it := Intent{Key: "enqueue:acme/calc#3:abc", Kind: "enqueue", Repo: "acme/calc", Installation: 1, PR: 3, SHA: "abc", At: t0}
	if err := j.Begin(ctx, it); err != nil {
		t.Fatal(err)
	}
	if done, _ := j.Done(ctx, it.Key); done {
		t.Fatal("an intent counts as done before GitHub confirmed it")
	}
	var got []Intent
	redrive := func(_ context.Context, it Intent) error { got = append(got, it); return nil }
	if n, err := j.Sweep(ctx, t0.Add(time.Minute), 10*time.Minute, redrive); err != nil || n != 0 {
		t.Fatalf("swept %d (%v) within the quiet period", n, err)
	}
	if n, err := j.Sweep(ctx, t0.Add(11*time.Minute), 10*time.Minute, redrive); err != nil || n != 1 || got[0].PR != 3 || got[0].Repo != "acme/calc" {
		t.Fatalf("swept %d (%v), re-driven %+v: the killed effect is not re-driven", n, err, got)
	}
	if n, _ := j.Sweep(ctx, t0.Add(12*time.Minute), 10*time.Minute, redrive); n != 0 {
		t.Fatal("re-driven again before another quiet period")
	}
	if err := j.Confirm(ctx, it.Key); err != nil {
		t.Fatal(err)
	}
	if done, _ := j.Done(ctx, it.Key); !done {
		t.Fatal("not done after the confirmation")
	}
	if n, _ := j.Sweep(ctx, t0.Add(time.Hour), 10*time.Minute, redrive); n != 0 {
		t.Fatal("a confirmed effect is re-driven")
	}
	if err := j.Undo(ctx, it.Key); err != nil {
		t.Fatal(err)
	}
	if done, _ := j.Done(ctx, it.Key); done {
		t.Fatal("still done after GitHub withdrew it")
	}
}
