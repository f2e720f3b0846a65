package jobs

import (
	"context"
	"testing"
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
