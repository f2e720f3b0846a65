package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Queue enqueues and cancels Warden's tasks.
type Queue struct {
	client    *asynq.Client
	inspector *asynq.Inspector
	flags     *Flags
}

// NewQueue opens an asynq client and inspector on the backend.
func NewQueue(b *Backend) *Queue {
	return &Queue{client: asynq.NewClient(b.Opt), inspector: asynq.NewInspector(b.Opt), flags: NewFlags(b.RDB)}
}

// Close releases the client and inspector connections.
func (q *Queue) Close() error {
	return errors.Join(q.client.Close(), q.inspector.Close())
}

// Inspector exposes asynq's inspector (queue pause, listings).
func (q *Queue) Inspector() *asynq.Inspector { return q.inspector }

// EnqueueResult says what happened to an enqueue.
type EnqueueResult int

// Enqueue results.
const (
	Queued        EnqueueResult = iota // a new task was queued
	AlreadyQueued                      // the issue already has a task queued or running
)

// EnqueueRun queues the issue's pipeline unless one is already queued or
// running. A task that ended and was kept (archived after an escalation, or
// revoked) no longer counts: it is deleted and replaced.
func (q *Queue) EnqueueRun(ctx context.Context, p RunPayload, opts ...asynq.Option) (EnqueueResult, error) {
	task, err := NewRunTask(p, opts...)
	if err != nil {
		return 0, err
	}
	// The issue's task may wait under a derived id (a deferral): then it is
	// the one task of the issue, and this request joins it.
	alias, _, err := q.aliasState(ctx, p.Repo, p.Issue)
	if err != nil {
		return 0, err
	}
	live := alias != ""
	if !live {
		if live, err = q.liveTask(RunTaskID(p.Repo, p.Issue)); err != nil {
			return 0, err
		}
	}
	// Feedback, a sweep or a CI report that joins the issue's live task
	// leaves its cancel flag: a `/warden cancel` stops that task even when
	// a review arrives meanwhile. A maintainer's new label or retry wins;
	// so does a person's request (feedback) with nothing live. A machine's
	// enqueue (no sender: an evaluation re-queueing waiting feedback, a CI
	// fix, an unblock) never lifts a cancel: it is revoked when it starts.
	maintainer := p.Reason == ReasonLabel || p.Reason == ReasonRetry
	if err := q.clearFor(ctx, p, (!live && p.Sender != "") || maintainer); err != nil {
		return 0, err
	}
	if alias != "" {
		return AlreadyQueued, nil
	}
	for range 2 {
		_, err = q.client.EnqueueContext(ctx, task)
		if !errors.Is(err, asynq.ErrTaskIDConflict) {
			break
		}
		replaced, rerr := q.replaceFinished(RunTaskID(p.Repo, p.Issue))
		if rerr != nil {
			return 0, rerr
		}
		if !replaced {
			return AlreadyQueued, nil
		}
	}
	if err != nil {
		return 0, fmt.Errorf("enqueue %s: %w", p.Key(), err)
	}
	return Queued, nil
}

// replaceFinished deletes the task holding id when it has finished (archived
// or completed) so that a new one can take the id.
func (q *Queue) replaceFinished(id string) (bool, error) {
	for _, queue := range []string{QueueDefault} {
		info, err := q.inspector.GetTaskInfo(queue, id)
		if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("inspect task %s: %w", id, err)
		}
		switch info.State {
		case asynq.TaskStateArchived, asynq.TaskStateCompleted:
			if err := q.inspector.DeleteTask(queue, id); err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
				return false, fmt.Errorf("delete finished task %s: %w", id, err)
			}
			return true, nil
		}
		return false, nil
	}
	// Not found in any queue: the conflict was a race with a task that just finished.
	return true, nil
}

// EnqueueStatus queues a status-comment update.
func (q *Queue) EnqueueStatus(ctx context.Context, p StatusPayload) error {
	task, err := NewStatusTask(p)
	if err != nil {
		return err
	}
	if err := q.enqueueOnce(ctx, task); err != nil {
		return fmt.Errorf("enqueue status %s: %w", IssueKey(p.Repo, p.Issue), err)
	}
	return nil
}

// CancelResult says what a cancel found.
type CancelResult int

// Cancel results.
const (
	NothingToCancel CancelResult = iota
	CanceledQueued               // a waiting task was deleted
	CancelRequested              // a running task was flagged; its worker stops it
)

// Cancel stops the issue's task, under its own id or a derived one (a
// deferral). The flag is set first so a worker that is about to start (or
// restart after a crash) sees it; a task still waiting in the queue is
// deleted outright.
func (q *Queue) Cancel(ctx context.Context, repo string, issue int) (CancelResult, error) {
	if err := q.flags.SetCancel(ctx, repo, issue); err != nil {
		return 0, err
	}
	ids, err := q.taskIDs(ctx, repo, issue)
	if err != nil {
		return 0, err
	}
	res := NothingToCancel
	for _, id := range ids {
		r, err := q.cancelOne(id)
		if err != nil {
			return 0, err
		}
		res = max(res, r)
	}
	return res, nil
}

// EnqueuePR queues a PR re-evaluation.
func (q *Queue) EnqueuePR(ctx context.Context, p PRPayload) error {
	task, err := NewPRTask(p)
	if err != nil {
		return err
	}
	enqueue := q.enqueueOnce
	if coalesces(p) {
		enqueue = func(ctx context.Context, task *asynq.Task) error { return q.enqueueCoalesced(ctx, task, p) }
	}
	if err := enqueue(ctx, task); err != nil {
		return fmt.Errorf("enqueue pr %s#%d: %w", p.Repo, p.PR, err)
	}
	return nil
}

// EnqueuePRAfter queues a PR re-evaluation to run d from now.
func (q *Queue) EnqueuePRAfter(ctx context.Context, p PRPayload, d time.Duration) error {
	task, err := NewPRTask(p)
	if err != nil {
		return err
	}
	if _, err := q.client.EnqueueContext(ctx, task, asynq.ProcessIn(d)); err != nil {
		return fmt.Errorf("enqueue pr %s#%d in %s: %w", p.Repo, p.PR, d, err)
	}
	return nil
}

// EnqueuePRAgain queues the PR's evaluation after the one that holds its
// lease: one waiting evaluation per PR, so a burst of events while one
// runs coalesces into a single later one (it re-reads everything).
func (q *Queue) EnqueuePRAgain(ctx context.Context, p PRPayload, d time.Duration) error {
	task, err := NewPRTask(p)
	if err != nil {
		return err
	}
	// One id per window of d: the again-task of an earlier window may be
	// the one running now, and must not swallow this event.
	id := fmt.Sprintf("pr-again:%s:%d", IssueKey(p.Repo, p.PR), time.Now().UnixNano()/int64(max(d, time.Second)))
	if _, err := q.client.EnqueueContext(ctx, task, asynq.TaskID(id), asynq.ProcessIn(d)); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("enqueue pr %s#%d again: %w", p.Repo, p.PR, err)
	}
	return nil
}

// EnqueueClosed queues the follow-up of a closed issue.
func (q *Queue) EnqueueClosed(ctx context.Context, p ClosedPayload) error {
	task, err := NewClosedTask(p)
	if err != nil {
		return err
	}
	if err := q.enqueueOnce(ctx, task); err != nil {
		return fmt.Errorf("enqueue closed %s: %w", IssueKey(p.Repo, p.Issue), err)
	}
	return nil
}

// Waiting reports whether the run task id is still in the queue, not yet
// taken by a worker (pending, scheduled or waiting to retry).
func (q *Queue) Waiting(id string) (bool, error) {
	st, found, err := q.taskState(id)
	if !found || err != nil {
		return false, err
	}
	switch st {
	case asynq.TaskStatePending, asynq.TaskStateScheduled, asynq.TaskStateRetry, asynq.TaskStateAggregating:
		return true, nil
	}
	return false, nil
}

// clearFor forgets, in one round trip, what a new run of the issue makes
// stale: a cancel request (when cancel), and — when a maintainer asked again (a label or
// /warden retry) — NEEDS_INTERVENTION (the explicit reset it waits for)
// and the CI fixes spent on the issue's PR (the new run gets the budget).
func (q *Queue) clearFor(ctx context.Context, p RunPayload, cancel bool) error {
	_, err := q.flags.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		if cancel {
			pl.Del(ctx, cancelKey(p.Repo, p.Issue))
		}
		markWaiting(ctx, pl, p.Installation, p.Repo)
		if p.Reason == ReasonLabel || p.Reason == ReasonRetry {
			pl.HDel(ctx, interventionKey, IssueKey(p.Repo, p.Issue))
			pl.Del(ctx, counterKey(CheckFixesKey(p.Repo, p.Issue)))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("clear cancel flag of %s: %w", p.Key(), err)
	}
	return nil
}
