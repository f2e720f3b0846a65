package jobs

import (
	"context"
	"testing"
)

// A check_run.completed and the check_suite.completed after it (other
// deliveries, one head) wait as one evaluation; another head, another kind
// of event and a push are evaluated on their own; an evaluation that is no
// longer waiting (here archived: it ran and failed for good) swallows no
// event.
func TestEnqueuePRCoalescesABurst(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	t.Cleanup(func() { q.Close() })
	checks := PRPayload{Repo: "acme/calc", Installation: 1, PR: 3, SHA: "aaa", Action: "checks"}
	other := checks
	other.SHA = "bbb"
	status := checks
	status.PR, status.Action, status.Sender = 0, "status", "ci-bot"
	sync := checks
	sync.Action = "sync"
	for i, p := range []PRPayload{checks, checks, other, status, status, sync} {
		ctx := WithDelivery(context.Background(), "d-"+string(rune('a'+i)))
		if err := q.EnqueuePR(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	info, err := q.Inspector().GetQueueInfo(QueueCritical)
	if err != nil {
		t.Fatal(err)
	}
	if info.Scheduled != 3 || info.Pending != 1 {
		t.Fatalf("scheduled %d, pending %d; want 3 waiting evaluations (one per head and kind) and the push's", info.Scheduled, info.Pending)
	}
	if err := q.Inspector().ArchiveTask(QueueCritical, coalesceID(checks)); err != nil {
		t.Fatal(err)
	}
	if err := q.EnqueuePR(WithDelivery(context.Background(), "d-late"), checks); err != nil {
		t.Fatal(err)
	}
	if info, _ = q.Inspector().GetQueueInfo(QueueCritical); info.Pending != 2 {
		t.Fatalf("pending %d after an event for an evaluation that ended, want 2", info.Pending)
	}
}
