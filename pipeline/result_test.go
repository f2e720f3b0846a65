package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/warden-bot/warden/outcome"
)

func failingAttempt() *attempt {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return &attempt{p: &Pipeline{Log: log}, log: log, tr: newTracker(&statusHost{}, log, "maintenance", 1)}
}

// interrupted is what a model call returns when its context goes away: the
// provider reads it as a network failure, transient.
var interrupted = &outcome.Error{Class: outcome.Transient, Stage: StagePlan, Msg: "model request failed", Err: fmt.Errorf("post: %w", context.Canceled)}

// A maintainer's cancel (a typed Canceled cause on the run's context) makes
// the attempt canceled and not retried, even when the interrupted stage
// returned a transient error; the soak found such attempts retried by
// asynq and reported as "retryable (transient)".
func TestMaintainerCancelIsCanceledWhateverTheStageReturned(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&outcome.Error{Class: outcome.Canceled, Msg: "canceled by a maintainer"})
	rec := failingAttempt().failure(ctx, outcome.Record{}, interrupted)
	if rec.FailureClass != outcome.Canceled || rec.Outcome != outcome.Escalated {
		t.Fatalf("record = %s/%s, want escalated/canceled", rec.Outcome, rec.FailureClass)
	}
}

// Any other cause (a worker shutting down, a lost run lock) leaves a
// transient failure retryable: the task must run again elsewhere.
func TestShutdownKeepsTransientFailuresRetryable(t *testing.T) {
	for _, cause := range []error{nil, errors.New("run lock lost")} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		rec := failingAttempt().failure(ctx, outcome.Record{}, interrupted)
		if rec.FailureClass != outcome.Transient || rec.Outcome != outcome.Retryable {
			t.Errorf("cause %v: record = %s/%s, want retryable/transient", cause, rec.Outcome, rec.FailureClass)
		}
	}
}

// A stage's non-transient error under a canceled context was already
// recorded as canceled; that stays.
func TestCanceledContextMakesOtherFailuresCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := &outcome.Error{Class: outcome.Deterministic, Stage: StageTest, Msg: "the test command could not start"}
	if rec := failingAttempt().failure(ctx, outcome.Record{}, err); rec.FailureClass != outcome.Canceled {
		t.Fatalf("record = %s/%s, want canceled", rec.Outcome, rec.FailureClass)
	}
}
