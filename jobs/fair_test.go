package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func take(t *testing.T, g *Gate, inst int64, repo, task string) *Slot {
	t.Helper()
	s, err := g.Take(context.Background(), inst, repo, task)
	if err != nil {
		t.Fatalf("%s of %s (installation %d) may not start: %v", task, repo, inst, err)
	}
	return s
}

func refused(t *testing.T, g *Gate, inst int64, repo, task string) {
	t.Helper()
	if _, err := g.Take(context.Background(), inst, repo, task); !errors.Is(err, ErrRepoBusy) {
		t.Fatalf("%s of %s (installation %d) started (err %v), want ErrRepoBusy", task, repo, inst, err)
	}
}

func waiting(t *testing.T, rdb redis.UniversalClient, inst int64, repo string) {
	t.Helper()
	if _, err := rdb.Pipelined(context.Background(), func(pl redis.Pipeliner) error {
		markWaiting(context.Background(), pl, inst, repo)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestGateCapsARepository: WARDEN_MAX_PER_REPO tasks of one repository run
// at once; a slot frees when its task releases it or its lease runs out.
func TestGateCapsARepository(t *testing.T) {
	b := testBackend(t)
	g := NewGate(b.RDB, 2)
	a1 := take(t, g, 1, "o/a", "a1")
	take(t, g, 1, "o/a", "a2")
	take(t, g, 1, "o/a", "a2") // the same task again (a recovered copy) keeps its slot
	refused(t, g, 1, "o/a", "a3")
	a1.Release(context.Background())
	take(t, g, 1, "o/a", "a3")

	short := &Gate{rdb: b.RDB, cap: 1, lease: 200 * time.Millisecond}
	take(t, short, 1, "o/c", "c1") // its worker dies: the lease is never renewed
	refused(t, short, 1, "o/c", "c2")
	time.Sleep(300 * time.Millisecond)
	take(t, short, 1, "o/c", "c2")
}

// TestGateRoundRobin: a repository that waits goes before another
// repository's next task, and an installation that waits before another
// installation's next task, even below the cap.
func TestGateRoundRobin(t *testing.T) {
	b := testBackend(t)
	g := NewGate(b.RDB, 3)
	a1 := take(t, g, 1, "o/a", "a1")
	waiting(t, b.RDB, 1, "o/b") // b's task queued behind a's backlog
	refused(t, g, 1, "o/a", "a2")
	take(t, g, 1, "o/b", "b1")
	take(t, g, 1, "o/a", "a2") // both run one: a is not behind b any more
	a1.Release(context.Background())

	// Installation 2 waits with nothing running: installation 1's other
	// repository may not start before it.
	waiting(t, b.RDB, 2, "p/x")
	refused(t, g, 1, "o/c", "c1")
	take(t, g, 2, "p/x", "x1")
	take(t, g, 1, "o/c", "c1")
}

// TestGateIsAtomic: many workers taking at once never exceed the cap.
func TestGateIsAtomic(t *testing.T) {
	b := testBackend(t)
	g := NewGate(b.RDB, 2)
	var mu sync.Mutex
	started := 0
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := g.Take(context.Background(), 1, "o/a", fmt.Sprint("t", i)); err == nil {
				mu.Lock()
				started++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if started != 2 {
		t.Fatalf("%d tasks started at once, cap 2", started)
	}
}

// TestBusyGoesBackQuicklyAndFree: a task sent back by the gate returns in
// about a second and does not spend its retries.
func TestBusyGoesBackQuicklyAndFree(t *testing.T) {
	err := fmt.Errorf("run o/a#1: %w", ErrRepoBusy)
	if d := retryDelay(0, err, nil); d > time.Second {
		t.Errorf("retry delay %v for a busy repository, want ≤ 1 s", d)
	}
	if isFailure(err) {
		t.Error("a busy repository counts as a failure")
	}
}
