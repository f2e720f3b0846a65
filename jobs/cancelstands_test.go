package jobs

import (
	"context"
	"testing"
)

// #38, found by the interleaving test driving the worker: after a writer's
// `/warden cancel` took the task out of the queue, a PR evaluation
// that found the feedback still waiting queued its follow-up again — and,
// nothing being live, that enqueue cleared the cancel and the follow-up
// ran. A machine's enqueue (no sender: an evaluation, a CI fix, an
// unblock) leaves the cancel standing; a person's (feedback, a command)
// with nothing live is a new request and clears it.
func TestMachineEnqueueKeepsACancel(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	if _, err := q.Cancel(ctx, "acme/calc", 5); err != nil {
		t.Fatal(err)
	}
	fu := payload(5)
	fu.Reason, fu.PR = ReasonFollowup, 9
	if _, err := q.EnqueueRun(ctx, fu); err != nil {
		t.Fatal(err)
	}
	if c, _ := q.flags.Canceled(ctx, "acme/calc", 5); !c {
		t.Fatal("an evaluation's follow-up (no sender) cleared a writer's cancel")
	}
	_ = q.inspector.DeleteTask(QueueDefault, RunTaskID("acme/calc", 5)) // the worker revoked it
	fu.Sender = "alice"                                                 // her new review comment
	if _, err := q.EnqueueRun(ctx, fu); err != nil {
		t.Fatal(err)
	}
	if c, _ := q.flags.Canceled(ctx, "acme/calc", 5); c {
		t.Fatal("a writer's new feedback with nothing live left the cancel standing")
	}
}
