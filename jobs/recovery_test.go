package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// A run that found its issue locked is retried without spending the retries
// kept for crashed workers; any other error spends one.
func TestLockContentionSpendsNoRetry(t *testing.T) {
	b := testBackend(t)
	w := newTestWorker(t, b, &scripted{rec: outcome.Record{Outcome: outcome.Completed}})
	ctx := context.Background()
	lk, err := w.Locks.Acquire(ctx, "acme/calc#301")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Release(ctx)
	err = w.HandleRun(ctx, runTask(t, payload(301)))
	if !errors.Is(err, ErrLocked) || isFailure(err) {
		t.Fatalf("locked run: err %v, failure %v; want ErrLocked and no failure", err, isFailure(err))
	}
	if !isFailure(errors.New("model unreachable")) {
		t.Fatal("an ordinary error must spend a retry")
	}
}

// asynq's recoverer hands back a task whose 30 s lease expired at least 30 s
// ago; the lease is extended every 5 s, so a task comes back 55 s after its
// worker died at the earliest. The dead worker's run lock, refreshed every
// third of its TTL, must be gone by then.
func TestCrashedRunLockExpiresBeforeLeaseRecovery(t *testing.T) {
	const earliestRecovery = 25*time.Second + 30*time.Second
	if RunLockTTL >= earliestRecovery {
		t.Fatalf("RunLockTTL %s: a recovered task bounces off its dead worker's lock (recovery from %s)", RunLockTTL, earliestRecovery)
	}
	if RunLockTTL/3 < time.Second {
		t.Fatalf("RunLockTTL %s: refreshes every %s hammer Redis", RunLockTTL, RunLockTTL/3)
	}
}
