package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

type statusCatcher struct {
	mu  sync.Mutex
	got []StatusPayload
}

func (s *statusCatcher) PostStatus(_ context.Context, p StatusPayload) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, p)
	return nil
}

// #27 item 3: a deferred run is still the issue's one task. A new trigger
// joins it instead of queueing a second task, and cancel finds and deletes
// it. Before the fix EnqueueRun queued a second task and Cancel answered
// "nothing to cancel" while the deferral waited.
func TestDeferredTaskKeepsTheIssuesIdentity(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	w := &Worker{Queue: q, Flags: NewFlags(b.RDB), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := w.deferRun(ctx, payload(21), 6*time.Hour); err != nil {
		t.Fatal(err)
	}
	res, err := q.EnqueueRun(ctx, payload(21))
	if err != nil {
		t.Fatal(err)
	}
	if res != AlreadyQueued {
		t.Fatal("a second task was queued while the issue's deferred task waits")
	}
	got, err := q.Cancel(ctx, "acme/calc", 21)
	if err != nil {
		t.Fatal(err)
	}
	if got != CanceledQueued {
		t.Fatalf("cancel of a deferred task = %v, want CanceledQueued", got)
	}
	if _, err := q.Inspector().GetTaskInfo(QueueDefault, RunTaskID("acme/calc", 21)+":deferred:1"); !errors.Is(err, asynq.ErrTaskNotFound) {
		t.Fatalf("the deferred task survived the cancel: %v", err)
	}
	if res, _ := q.EnqueueRun(ctx, payload(21)); res != Queued {
		t.Fatal("after the cancel a new trigger was not queued")
	}
}

// #27 item 3: a deferred task that finds the cancel flag when it starts
// ends with the canceled status (label), not silently.
func TestCanceledDeferredTaskPostsCanceled(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	st := &statusCatcher{}
	w := &Worker{Queue: q, Flags: NewFlags(b.RDB), Status: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := w.Flags.SetCancel(ctx, "acme/calc", 22); err != nil {
		t.Fatal(err)
	}
	p := payload(22)
	p.Reason, p.Deferrals = ReasonDeferred, 1
	task, _ := NewRunTask(p)
	err := w.HandleRun(ctx, task)
	if !errors.Is(err, asynq.RevokeTask) {
		t.Fatalf("canceled task err = %v", err)
	}
	if len(st.got) != 1 || st.got[0].State != "canceled" || st.got[0].Issue != 22 {
		t.Fatalf("status posted = %+v, want one canceled", st.got)
	}
}
