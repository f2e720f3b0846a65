package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/outcome"
)

// ErrCanceled is the cause set on a run's context when a maintainer canceled
// it (label removed, /warden cancel). It is typed, so the pipeline can tell
// it from a shutdown and record the attempt as canceled whatever error the
// interrupted stage returned.
var ErrCanceled error = &outcome.Error{Class: outcome.Canceled, Msg: "canceled by a maintainer"}

// Attempt tells the pipeline where this run stands in asynq's own retries.
type Attempt struct {
	Retry int  // 0 on the first delivery of the task
	Final bool // no asynq retry is left: a Retryable outcome must become Escalated
}

// Result is what a pipeline run ended with.
type Result struct {
	Record   outcome.Record
	DeferFor time.Duration // with outcome Deferred: when to try again
}

// Pipeline runs one attempt for one issue and reports it on GitHub itself.
type Pipeline interface {
	Run(ctx context.Context, p RunPayload, a Attempt) Result
}

// StatusPoster shows a quick state on an issue's status comment.
type StatusPoster interface {
	PostStatus(ctx context.Context, p StatusPayload) error
}

// Lifecycle answers PR and issue-closed events.
type Lifecycle interface {
	PR(ctx context.Context, p PRPayload) error
	IssueClosed(ctx context.Context, p ClosedPayload) error
}

// Dashboard refreshes a repository's dashboard issue.
type Dashboard interface {
	Refresh(ctx context.Context, p DashboardPayload) error
}

// Worker handles Warden's task types.
type Worker struct {
	Pipeline  Pipeline
	Status    StatusPoster
	Lifecycle Lifecycle
	Dashboard Dashboard // nil: dashboard tasks are dropped
	Flags     *Flags
	Locks     *Locks
	Queue     *Queue
	Gate      *Gate // fair share across repositories (fair.go); nil runs in queue order
	Log       *slog.Logger
	// CancelPoll is how often a running task checks its cancel flag.
	CancelPoll time.Duration
}

// Mux routes task types to the worker's handlers.
func (w *Worker) Mux() *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.HandleFunc(TypeRun, w.HandleRun)
	mux.HandleFunc(TypeStatus, w.HandleStatus)
	mux.HandleFunc(TypePR, func(ctx context.Context, t *asynq.Task) error {
		p, err := decode[PRPayload](t)
		if err != nil {
			return err
		}
		return w.Lifecycle.PR(ctx, p)
	})
	mux.HandleFunc(TypeIssueClosed, func(ctx context.Context, t *asynq.Task) error {
		p, err := decode[ClosedPayload](t)
		if err != nil {
			return err
		}
		return w.Lifecycle.IssueClosed(ctx, p)
	})
	mux.HandleFunc(TypeDashboard, func(ctx context.Context, t *asynq.Task) error {
		p, err := decode[DashboardPayload](t)
		if err != nil || w.Dashboard == nil {
			return err
		}
		return w.Dashboard.Refresh(ctx, p)
	})
	return mux
}

// HandleStatus posts a status update.
func (w *Worker) HandleStatus(ctx context.Context, t *asynq.Task) error {
	p, err := decode[StatusPayload](t)
	if err != nil {
		return err
	}
	if err := w.Status.PostStatus(ctx, p); err != nil {
		return fmt.Errorf("status %s: %w", IssueKey(p.Repo, p.Issue), err)
	}
	return nil
}

// HandleRun runs the pipeline for one issue, under the issue's run lock,
// stopping it when its cancel flag is set.
func (w *Worker) HandleRun(ctx context.Context, t *asynq.Task) error {
	p, err := decode[RunPayload](t)
	if err != nil {
		return err
	}
	id, _ := asynq.GetTaskID(ctx)
	log := w.Log.With("task", id, "delivery", p.Delivery, "repo", p.Repo, "issue", p.Issue, "installation", p.Installation)
	if canceled, err := w.Flags.Canceled(ctx, p.Repo, p.Issue); err != nil {
		return err
	} else if canceled {
		log.Info("task canceled before it started")
		// Nobody else shows it: the router answers "running, asked to stop"
		// or found nothing waiting (a deferral it could not see).
		if w.Status != nil {
			st := StatusPayload{Repo: p.Repo, Installation: p.Installation, Issue: p.Issue, Mode: p.Mode, State: "canceled"}
			if err := w.Status.PostStatus(context.WithoutCancel(ctx), st); err != nil {
				return fmt.Errorf("show cancel of %s: %w", p.Key(), err) // retried: the flag is still set
			}
		}
		return fmt.Errorf("%s canceled: %w", p.Key(), asynq.RevokeTask)
	}
	if paused, err := w.Flags.Paused(ctx, p.Installation); err != nil {
		return err
	} else if paused {
		log.Info("installation paused after systemic failures; the run waits for /warden resume")
		return fmt.Errorf("run %s: %w", p.Key(), ErrPaused)
	}
	var slot *Slot
	if w.Gate != nil {
		if slot, err = w.Gate.Take(ctx, p.Installation, p.Repo, id); err != nil {
			return fmt.Errorf("run %s: %w", p.Key(), err) // not its turn: back to the queue
		}
		defer slot.Release(context.WithoutCancel(ctx))
	}
	lock, err := w.Locks.Acquire(ctx, p.Key())
	if err != nil {
		// Another worker runs this issue (a crashed task's copy, a deferral): try later.
		return fmt.Errorf("run %s: %w", p.Key(), err)
	}
	defer lock.Release(context.WithoutCancel(ctx))

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go lock.Keep(runCtx, cancel)
	if slot != nil {
		go slot.Keep(runCtx)
	}
	go w.watchCancel(runCtx, cancel, p)

	retry, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	res := w.Pipeline.Run(runCtx, p, Attempt{Retry: retry, Final: retry >= maxRetry})
	log.Info("run finished", "outcome", res.Record.Outcome, "failure_class", res.Record.FailureClass, "fingerprint", res.Record.Fingerprint)
	return w.result(context.WithoutCancel(ctx), p, res)
}

func (w *Worker) watchCancel(ctx context.Context, cancel context.CancelCauseFunc, p RunPayload) {
	poll := w.CancelPoll
	if poll <= 0 {
		poll = time.Second
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if c, err := w.Flags.Canceled(ctx, p.Repo, p.Issue); err == nil && c {
				cancel(ErrCanceled)
				return
			}
		}
	}
}

// result maps an outcome to asynq's vocabulary (DESIGN.md §3).
func (w *Worker) result(ctx context.Context, p RunPayload, res Result) error {
	rec := res.Record
	switch {
	case rec.FailureClass == outcome.Canceled:
		return fmt.Errorf("%s canceled: %w", p.Key(), asynq.RevokeTask)
	case rec.Outcome == outcome.Completed, rec.Outcome == outcome.Decomposed:
		return nil
	case rec.Outcome == outcome.Deferred:
		return w.deferRun(ctx, p, res.DeferFor)
	case rec.Outcome == outcome.Blocked:
		return fmt.Errorf("%s blocked: %w", p.Key(), asynq.RevokeTask)
	case rec.Outcome == outcome.Retryable:
		return fmt.Errorf("%s retryable (%s): %s", p.Key(), rec.FailureClass, rec.Fingerprint)
	}
	return fmt.Errorf("%s escalated (%s): %w", p.Key(), rec.FailureClass, asynq.SkipRetry)
}

// deferRun queues the issue again later under a derived TaskID: the current
// task still holds the issue's own id until this handler returns. A cancel
// wins over the deferral: the flag is read after the enqueue, so a cancel
// either found the deferred task (its alias is recorded first) or is seen
// here and the task deleted.
func (w *Worker) deferRun(ctx context.Context, p RunPayload, d time.Duration) error {
	if d <= 0 {
		d = time.Minute
	}
	d = min(d, MaxDefer)
	p.Deferrals++
	if p.Reason != ReasonFollowup { // a follow-up stays one: its feedback waits in the store
		p.Reason = ReasonDeferred
	}
	id := fmt.Sprintf("%s:deferred:%d", RunTaskID(p.Repo, p.Issue), p.Deferrals)
	task, err := NewRunTask(p, asynq.TaskID(id), asynq.ProcessIn(d))
	if err != nil {
		return err
	}
	if err := w.Queue.recordAlias(ctx, p.Repo, p.Issue, id); err != nil {
		return err // before the enqueue: a deferred task is never invisible to cancel
	}
	if _, err := w.Queue.client.EnqueueContext(ctx, task); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("defer %s: %w", p.Key(), err)
	}
	canceled, err := w.Flags.Canceled(ctx, p.Repo, p.Issue)
	if err != nil {
		return fmt.Errorf("defer %s: %w", p.Key(), err) // retried: the deferral stands until the flag is read
	}
	if !canceled {
		return nil
	}
	if _, err := w.Queue.cancelOne(id); err != nil {
		return fmt.Errorf("cancel deferral of %s: %w", p.Key(), err)
	}
	w.Log.Info("canceled while running; not deferred", "repo", p.Repo, "issue", p.Issue)
	return fmt.Errorf("%s canceled: %w", p.Key(), asynq.RevokeTask)
}
