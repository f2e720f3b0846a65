package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/outcome"
)

type scripted struct {
	rec     outcome.Record
	started chan struct{}
	sawCtx  chan error
	block   bool
}

func (s *scripted) Run(ctx context.Context, p RunPayload, a Attempt) Result {
	if s.started != nil {
		close(s.started)
	}
	if s.block {
		<-ctx.Done()
		s.sawCtx <- context.Cause(ctx)
	}
	return Result{Record: s.rec}
}

func newTestWorker(t *testing.T, b *Backend, p Pipeline) *Worker {
	q := NewQueue(b)
	t.Cleanup(func() { q.Close() })
	return &Worker{Pipeline: p, Flags: NewFlags(b.RDB), Locks: NewLocks(b.RDB, 3*time.Second), Queue: q,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), CancelPoll: 20 * time.Millisecond}
}

func runTask(t *testing.T, p RunPayload) *asynq.Task {
	task, err := NewRunTask(p)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// The outcome → asynq result mapping of DESIGN.md §3.
func TestOutcomeMapping(t *testing.T) {
	b := testBackend(t)
	cases := []struct {
		rec  outcome.Record
		want func(error) bool
	}{
		{outcome.Record{Outcome: outcome.Completed}, func(e error) bool { return e == nil }},
		{outcome.Record{Outcome: outcome.Decomposed}, func(e error) bool { return e == nil }},
		{outcome.Record{Outcome: outcome.Blocked}, func(e error) bool { return errors.Is(e, asynq.RevokeTask) }},
		{outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.Canceled}, func(e error) bool { return errors.Is(e, asynq.RevokeTask) }},
		{outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.TestFailure}, func(e error) bool { return errors.Is(e, asynq.SkipRetry) }},
		{outcome.Record{Outcome: outcome.Retryable, FailureClass: outcome.Transient}, func(e error) bool {
			return e != nil && !errors.Is(e, asynq.SkipRetry) && !errors.Is(e, asynq.RevokeTask)
		}},
		{outcome.Record{Outcome: outcome.Deferred}, func(e error) bool { return e == nil }},
	}
	for i, tc := range cases {
		w := newTestWorker(t, b, &scripted{rec: tc.rec})
		err := w.HandleRun(context.Background(), runTask(t, payload(100+i)))
		if !tc.want(err) {
			t.Errorf("%s/%s: got %v", tc.rec.Outcome, tc.rec.FailureClass, err)
		}
	}
	// The deferral came back as a scheduled follow-up with a derived id.
	info, err := NewQueue(b).inspector.GetTaskInfo(QueueDefault, RunTaskID("acme/calc", 106)+":deferred:1")
	if err != nil || info.State != asynq.TaskStateScheduled {
		t.Fatalf("deferred follow-up: %v %v", info, err)
	}
}

// A cancel flag set while the pipeline runs cancels its context with
// ErrCanceled within the poll interval.
func TestCancelReachesRunningPipeline(t *testing.T) {
	b := testBackend(t)
	s := &scripted{rec: outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.Canceled}, started: make(chan struct{}), sawCtx: make(chan error, 1), block: true}
	w := newTestWorker(t, b, s)
	done := make(chan error, 1)
	go func() { done <- w.HandleRun(context.Background(), runTask(t, payload(200))) }()
	<-s.started
	if err := w.Flags.SetCancel(context.Background(), "acme/calc", 200); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-s.sawCtx:
		if !errors.Is(cause, ErrCanceled) {
			t.Fatalf("cause = %v", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not reach the pipeline within 10 s")
	}
	if err := <-done; !errors.Is(err, asynq.RevokeTask) {
		t.Fatalf("handler = %v", err)
	}
}

func TestSecondRunOfSameIssueWaits(t *testing.T) {
	b := testBackend(t)
	w := newTestWorker(t, b, &scripted{rec: outcome.Record{Outcome: outcome.Completed}})
	lk, _ := w.Locks.Acquire(context.Background(), "acme/calc#300")
	defer lk.Release(context.Background())
	if err := w.HandleRun(context.Background(), runTask(t, payload(300))); !errors.Is(err, ErrLocked) {
		t.Fatalf("got %v", err)
	}
}

// The cancel cause is typed Canceled, which the pipeline reads to record a
// canceled attempt whatever error the interrupted stage returned.
func TestCancelCauseIsTypedCanceled(t *testing.T) {
	var oe *outcome.Error
	if !errors.As(ErrCanceled, &oe) || oe.Class != outcome.Canceled {
		t.Fatalf("ErrCanceled = %#v, want an *outcome.Error of class canceled", ErrCanceled)
	}
}
