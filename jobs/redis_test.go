package jobs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testBackend leases a Redis database of its own on the real Redis that
// `make test` provides and cleans only the keys Warden and asynq create.
func testBackend(t *testing.T) *Backend {
	t.Helper()
	addr := os.Getenv("WARDEN_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	ctx := context.Background()
	lock := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { lock.Close() })
	if err := lock.Ping(ctx).Err(); err != nil {
		t.Fatalf("no Redis at %s (%v): run `make test`, which starts one, or install the redis-server package", addr, err)
	}
	db := 0
	for n := 1; n < 16 && db == 0; n++ {
		if ok, _ := lock.SetNX(ctx, fmt.Sprintf("warden-test:db:%d", n), os.Getpid(), 600e9).Result(); ok {
			db = n
		}
	}
	if db == 0 {
		t.Fatal("every Redis test database 1..15 is leased")
	}
	b, err := Open(fmt.Sprintf("redis://%s/%d", addr, db), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	clean := func() {
		for _, pattern := range []string{"asynq:*", "warden:*"} {
			keys, _ := b.RDB.Keys(ctx, pattern).Result()
			if len(keys) > 0 {
				b.RDB.Del(ctx, keys...)
			}
		}
	}
	clean()
	t.Cleanup(func() {
		clean()
		b.Close()
		lock.Del(ctx, fmt.Sprintf("warden-test:db:%d", db))
	})
	return b
}

func payload(issue int) RunPayload {
	return RunPayload{Repo: "acme/calc", Installation: 1, Issue: issue, Mode: "maintenance", Reason: ReasonLabel}
}

func TestEnqueueOneTaskPerIssue(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	if r, err := q.EnqueueRun(ctx, payload(1)); err != nil || r != Queued {
		t.Fatalf("first: %v %v", r, err)
	}
	if r, err := q.EnqueueRun(ctx, payload(1)); err != nil || r != AlreadyQueued {
		t.Fatalf("second: %v %v", r, err)
	}
	if r, err := q.EnqueueRun(ctx, payload(2)); err != nil || r != Queued {
		t.Fatalf("other issue: %v %v", r, err)
	}
	// An archived (escalated) task no longer holds the issue.
	if err := q.inspector.ArchiveTask(QueueDefault, RunTaskID("acme/calc", 1)); err != nil {
		t.Fatal(err)
	}
	if r, err := q.EnqueueRun(ctx, payload(1)); err != nil || r != Queued {
		t.Fatalf("after archive: %v %v", r, err)
	}
}

func TestCancelQueuedDeletesAndFlags(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	if res, err := q.Cancel(ctx, "acme/calc", 3); err != nil || res != NothingToCancel {
		t.Fatalf("nothing queued: %v %v", res, err)
	}
	q.EnqueueRun(ctx, payload(3))
	res, err := q.Cancel(ctx, "acme/calc", 3)
	if err != nil || res != CanceledQueued {
		t.Fatalf("queued: %v %v", res, err)
	}
	if c, _ := q.flags.Canceled(ctx, "acme/calc", 3); !c {
		t.Fatal("cancel flag not set")
	}
	// Labelling again clears the flag and queues anew.
	if r, err := q.EnqueueRun(ctx, payload(3)); err != nil || r != Queued {
		t.Fatalf("requeue: %v %v", r, err)
	}
	if c, _ := q.flags.Canceled(ctx, "acme/calc", 3); c {
		t.Fatal("cancel flag survived a new label")
	}
}

func TestDeliveriesRememberOnlyCommitted(t *testing.T) {
	b := testBackend(t)
	d := NewDeliveries(b.RDB, 3600e9)
	ctx := context.Background()
	if st, err := d.Begin(ctx, "a"); err != nil || st != DeliveryNew {
		t.Fatalf("first: %v %v", st, err)
	}
	if st, _ := d.Begin(ctx, "a"); st != DeliveryPending {
		t.Fatalf("concurrent duplicate: %v, want pending", st)
	}
	d.Abort(ctx, "a")
	if st, _ := d.Begin(ctx, "a"); st != DeliveryNew {
		t.Fatalf("aborted delivery still remembered: %v", st)
	}
	d.Commit(ctx, "a")
	if st, _ := d.Begin(ctx, "a"); st != DeliveryDone {
		t.Fatalf("committed delivery: %v, want done", st)
	}
	if ttl := b.RDB.TTL(ctx, "warden:delivery:a").Val(); ttl < 3500e9 {
		t.Fatalf("committed ttl = %v", ttl)
	}
}

func TestLocksExclusive(t *testing.T) {
	b := testBackend(t)
	l := NewLocks(b.RDB, 5e9)
	ctx := context.Background()
	lk, err := l.Acquire(ctx, "acme/calc#1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Acquire(ctx, "acme/calc#1"); err != ErrLocked {
		t.Fatalf("second acquire: %v", err)
	}
	if held, _ := l.Held(ctx, "acme/calc#1"); !held {
		t.Fatal("not held")
	}
	lk.Release(ctx)
	if _, err := l.Acquire(ctx, "acme/calc#1"); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// Wait gets the lock once its holder lets go, and gives up after max.
func TestLocksWait(t *testing.T) {
	b := testBackend(t)
	l := NewLocks(b.RDB, 5e9)
	ctx := context.Background()
	key := StatusKey("acme/calc", 1)
	lk, err := l.Acquire(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Wait(ctx, key, 100*time.Millisecond); err != ErrLocked {
		t.Fatalf("wait on a held lock: %v", err)
	}
	time.AfterFunc(200*time.Millisecond, func() { lk.Release(ctx) })
	start := time.Now()
	if _, err := l.Wait(ctx, key, 5*time.Second); err != nil || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("wait: %v after %s", err, time.Since(start))
	}
	if held, _ := l.Held(ctx, IssueKey("acme/calc", 1)); held {
		t.Fatal("the status lock must not read as the issue's run lock")
	}
}

func TestLinksAndHistory(t *testing.T) {
	b := testBackend(t)
	ctx := context.Background()
	l := NewLinks(b.RDB)
	l.BlockOn(ctx, "acme/calc", 12, 5)
	l.BlockOn(ctx, "acme/calc", 12, 6)
	got, _ := l.Unblock(ctx, "acme/calc", 12)
	if len(got) != 2 {
		t.Fatalf("unblocked %v", got)
	}
	// #27 item 7: each stays recorded until it is requeued; a failure
	// halfway through strands none.
	_ = l.Unblocked(ctx, "acme/calc", 12, got[0])
	if again, _ := l.Unblock(ctx, "acme/calc", 12); len(again) != 1 || again[0] != got[1] {
		t.Fatalf("after one requeue the set holds %v, want [%d]", again, got[1])
	}
	_ = l.Unblocked(ctx, "acme/calc", 12, got[1])
	if again, _ := l.Unblock(ctx, "acme/calc", 12); len(again) != 0 {
		t.Fatal("unblock twice")
	}
	l.AddChild(ctx, "acme/calc", 1, 2)
	l.AddChild(ctx, "acme/calc", 1, 3)
	l.AddChild(ctx, "acme/calc", 3, 4)
	if p, _ := l.Parent(ctx, "acme/calc", 4); p != 3 {
		t.Fatalf("parent = %d", p)
	}
	if n, _ := l.TreeSize(ctx, "acme/calc", 4); n != 4 {
		t.Fatalf("tree size = %d", n)
	}
	h := NewHistory(b.RDB)
	for i := range HistoryLimit + 5 {
		h.Append(ctx, "acme/calc", i, outcomeRecord(i))
	}
	lines, _ := h.List(ctx, "acme/calc", HistoryLimit+10)
	if len(lines) != HistoryLimit || !strings.Contains(lines[0], fmt.Sprintf(`"issue":%d`, HistoryLimit+4)) {
		t.Fatalf("history len %d, newest %q", len(lines), lines[0][:60])
	}
}

// A `/warden cancel` of a task that is still live survives feedback that
// joins the task (a review on its PR queues a follow-up of the same issue);
// before, the join cleared the flag and the canceled task ran on. A
// maintainer's new label or retry does clear it.
func TestJoiningALiveTaskKeepsItsCancel(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	if r, err := q.EnqueueRun(ctx, payload(4)); err != nil || r != Queued {
		t.Fatalf("enqueue: %v %v", r, err)
	}
	_ = q.flags.SetCancel(ctx, "acme/calc", 4) // as Cancel does for a running task
	fu := payload(4)
	fu.Reason, fu.PR = ReasonFollowup, 9
	if r, err := q.EnqueueRun(ctx, fu); err != nil || r != AlreadyQueued {
		t.Fatalf("follow-up: %v %v", r, err)
	}
	if c, _ := q.flags.Canceled(ctx, "acme/calc", 4); !c {
		t.Fatal("a follow-up joining the live task cleared its cancel")
	}
	re := payload(4)
	re.Reason = ReasonRetry
	_, _ = q.EnqueueRun(ctx, re)
	if c, _ := q.flags.Canceled(ctx, "acme/calc", 4); c {
		t.Fatal("a maintainer's retry did not clear the cancel")
	}
}
