package jobs

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// The cancel flag lives as long as anything deferred can wait: a task
// deferred by the longest delay still finds it when it starts.
func TestCancelFlagOutlivesTheLongestDeferral(t *testing.T) {
	b := testBackend(t)
	ctx := context.Background()
	f := NewFlags(b.RDB)
	if err := f.SetCancel(ctx, "acme/calc", 24); err != nil {
		t.Fatal(err)
	}
	ttl, err := b.RDB.TTL(ctx, cancelKey("acme/calc", 24)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl < MaxDefer+RunTimeout {
		t.Fatalf("cancel flag lives %s, a deferral waits up to %s and runs up to %s", ttl, MaxDefer, RunTimeout)
	}
}

// A deferral longer than the longest one is cut to it.
func TestDeferralIsBounded(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	w := &Worker{Queue: q, Flags: NewFlags(b.RDB), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := w.deferRun(ctx, payload(25), 100*time.Hour); err != nil {
		t.Fatal(err)
	}
	ti, err := q.Inspector().GetTaskInfo(QueueDefault, RunTaskID("acme/calc", 25)+":deferred:1")
	if err != nil {
		t.Fatal(err)
	}
	if time.Until(ti.NextProcessAt) > MaxDefer+time.Minute {
		t.Fatalf("deferred by %s, beyond %s", time.Until(ti.NextProcessAt), MaxDefer)
	}
}
