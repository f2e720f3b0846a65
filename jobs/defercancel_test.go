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

// #38 (4): a cancel that reaches a running task which then defers must not
// come back: the deferral checks the flag and schedules nothing. Before the
// fix the task was scheduled 6 h later, after the 3 h flag had expired.
func TestCancelDuringRunStopsItsDeferral(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	w := &Worker{Queue: q, Flags: NewFlags(b.RDB), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if _, err := q.Cancel(ctx, "acme/calc", 23); err != nil {
		t.Fatal(err)
	}
	err := w.result(ctx, payload(23), Result{Record: outcome.Record{Outcome: outcome.Deferred}, DeferFor: 6 * time.Hour})
	if !errors.Is(err, asynq.RevokeTask) {
		t.Fatalf("deferral of a canceled run = %v, want the task revoked", err)
	}
	if _, err := q.Inspector().GetTaskInfo(QueueDefault, RunTaskID("acme/calc", 23)+":deferred:1"); !errors.Is(err, asynq.ErrTaskNotFound) {
		t.Fatalf("a canceled run was deferred: %v", err)
	}
}
