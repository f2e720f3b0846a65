package jobs

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

// activeRun starts a worker whose run handler holds issue's task active
// until the returned release is called.
func activeRun(t *testing.T, b *Backend, q *Queue, issue int) (release func()) {
	started, done := make(chan struct{}), make(chan struct{})
	mux := asynq.NewServeMux()
	mux.HandleFunc(TypeRun, func(context.Context, *asynq.Task) error { close(started); <-done; return nil })
	srv := NewServer(b, ServerOptions{Concurrency: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	if _, err := q.EnqueueRun(context.Background(), payload(issue)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the run never started")
	}
	return func() { close(done); srv.Shutdown() }
}

// A blocker closing while the blocked issue's own run is still finishing
// (the attempt that found it blocked) queues a follow-up instead of being
// answered "already queued" and lost; the soak's faster queue made
// TestBlockedIssueResumesWhenItsBlockerCloses hit this.
func TestUnblockWhileTheBlockedRunFinishes(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	release := activeRun(t, b, q, 74)
	defer release()
	if r, err := q.EnqueueUnblocked(context.Background(), payload(74), 75); err != nil || r != Queued {
		t.Fatalf("unblock during the run: %v %v", r, err)
	}
	info, err := q.inspector.GetTaskInfo(QueueDefault, RunTaskID("acme/calc", 74)+":unblocked:75")
	if err != nil || info.State != asynq.TaskStateScheduled {
		t.Fatalf("follow-up task = %+v, %v; want one scheduled", info, err)
	}
}

// A run still waiting in the queue will see the blocker closed by itself;
// an issue with no run gets one under its own TaskID.
func TestUnblockQueuesOnceOtherwise(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	if r, err := q.EnqueueUnblocked(ctx, payload(80), 81); err != nil || r != Queued {
		t.Fatalf("no run yet: %v %v", r, err)
	}
	if r, err := q.EnqueueUnblocked(ctx, payload(80), 82); err != nil || r != AlreadyQueued {
		t.Fatalf("run waiting: %v %v", r, err)
	}
	if _, err := q.inspector.GetTaskInfo(QueueDefault, RunTaskID("acme/calc", 80)+":unblocked:82"); err == nil {
		t.Fatal("a follow-up was queued behind a waiting run")
	}
}
