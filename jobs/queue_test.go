package jobs

import (
	"context"
	"reflect"
	"testing"

	"github.com/warden-bot/warden/outcome"
)

// Waiting is what the "queued" status update asks before it labels an
// issue: only a task still in the queue is queued.
func TestWaitingOnlyWhileInTheQueue(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	id := RunTaskID("acme/calc", 9)
	if w, err := q.Waiting(id); err != nil || w {
		t.Fatalf("unknown task: waiting=%v err=%v", w, err)
	}
	if _, err := q.EnqueueRun(context.Background(), payload(9)); err != nil {
		t.Fatal(err)
	}
	if w, err := q.Waiting(id); err != nil || !w {
		t.Fatalf("pending task: waiting=%v err=%v", w, err)
	}
	if _, err := q.Cancel(context.Background(), "acme/calc", 9); err != nil {
		t.Fatal(err)
	}
	if w, _ := q.Waiting(id); w {
		t.Fatal("a canceled task still waits")
	}
}

// Failed outcomes are counted by fingerprint across repositories; the most
// frequent come first, and completed ones are not counted.
func TestTopFingerprints(t *testing.T) {
	b := testBackend(t)
	h := NewHistory(b.RDB)
	ctx := context.Background()
	fail := func(fp string) outcome.Record {
		return outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.TestFailure, Fingerprint: fp}
	}
	for range 3 {
		_ = h.Append(ctx, "o/a", 1, fail("aaaa"))
	}
	_ = h.Append(ctx, "o/b", 2, fail("bbbb"))
	_ = h.Append(ctx, "o/b", 3, outcome.Record{Outcome: outcome.Completed, Fingerprint: "cccc"})
	top, err := h.TopFingerprints(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []FingerprintCount{{"test_failure", "o/a", "aaaa", 3}, {"test_failure", "o/b", "bbbb", 1}}
	if !reflect.DeepEqual(top, want) {
		t.Fatalf("top = %+v, want %+v", top, want)
	}
}

// #27: a maintainer asking again (`/warden retry` on the issue, a relabel)
// gets a fresh CI-fix budget on the PR: the new run's red CI is
// fixed again instead of escalated at once. A CI fix's own follow-up
// spends the budget and never resets it.
func TestRetryResetsTheCIFixBudget(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx, c, key := context.Background(), NewCounter(b.RDB), CheckFixesKey("acme/calc", 9)
	for range 2 {
		if _, err := c.Incr(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	p := payload(9)
	p.Reason = ReasonFollowup
	if _, err := q.EnqueueRun(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Get(ctx, key); n != 2 {
		t.Fatalf("a CI fix's follow-up left %d fixes spent, want 2", n)
	}
	p.Reason = ReasonRetry
	if _, err := q.EnqueueRun(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Get(ctx, key); n != 0 {
		t.Fatalf("after /warden retry %d CI fixes count as spent, want 0", n)
	}
}
