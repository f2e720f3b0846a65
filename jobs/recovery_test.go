package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
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
// worker died at the earliest. The dead worker's run lock must be gone by
// then, while a live worker's lock, refreshed by Keep, never lapses.
func TestCrashedRunLockExpiresBeforeLeaseRecovery(t *testing.T) {
	const earliestRecovery = 25*time.Second + 30*time.Second
	ctx := context.Background()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	locks := NewLocks(rdb, RunLockTTL)
	if _, err := locks.Acquire(ctx, "acme/calc#9"); err != nil { // the worker dies holding it
		t.Fatal(err)
	}
	mr.FastForward(RunLockTTL / 3) // until its next refresh, had it lived
	if _, err := locks.Acquire(ctx, "acme/calc#9"); !errors.Is(err, ErrLocked) {
		t.Fatalf("the lock lapsed before its holder's next refresh: %v", err)
	}
	mr.FastForward(earliestRecovery - RunLockTTL/3)
	if _, err := locks.Acquire(ctx, "acme/calc#9"); err != nil {
		t.Fatalf("the recovered task bounces off its dead worker's lock (RunLockTTL %s, recovery from %s): %v", RunLockTTL, earliestRecovery, err)
	}

	// Keep: Redis's clock (miniredis's, moved by hand) passes four TTLs
	// while the live holder refreshes; each move waits for the refresh that
	// follows it, so a slow machine only makes the test slower. Once the
	// holder dies (no Release), the lock is gone within a TTL.
	const ttl = 300 * time.Millisecond
	short := NewLocks(rdb, ttl)
	lk, err := short.Acquire(ctx, "acme/calc#10")
	if err != nil {
		t.Fatal(err)
	}
	alive, crash := context.WithCancelCause(ctx)
	kept := make(chan struct{})
	go func() { lk.Keep(alive, crash); close(kept) }()
	key := keyPrefix + "lock:acme/calc#10"
	for range 6 {
		mr.FastForward(ttl * 2 / 3)
		// Until Keep's next refresh; the bound only fails a Keep that no
		// longer refreshes (it refreshes every ttl/3 of wall time).
		for give := time.Now().Add(30 * time.Second); mr.TTL(key) != ttl && alive.Err() == nil && time.Now().Before(give); {
			time.Sleep(time.Millisecond)
		}
		if held, _ := short.Held(ctx, "acme/calc#10"); !held || alive.Err() != nil || mr.TTL(key) != ttl {
			t.Fatalf("a live worker's lock was not refreshed: held %v, ttl %s, %v", held, mr.TTL(key), context.Cause(alive))
		}
	}
	crash(errors.New("worker killed"))
	<-kept
	mr.FastForward(ttl)
	if held, _ := short.Held(ctx, "acme/calc#10"); held {
		t.Fatal("a dead worker's lock outlived its TTL")
	}
}
