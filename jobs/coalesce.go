package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// One evaluation per burst of CI events. GitHub ends a check suite with a
// check_run.completed for each run and then a check_suite.completed, a
// moment apart, and CI posting statuses sends one per context: each asks
// the same question ("is this head green now?"). Their evaluations wait
// CoalesceDelay under one task id per PR, head and action, so the events of
// a burst join the first one's evaluation while it has not started; it
// re-reads everything, so it answers theirs too.

// CoalesceDelay is how long a check or status evaluation waits for the
// rest of its burst: longer than GitHub's gap between a suite's last run
// and the suite, short for a merge.
const CoalesceDelay = 2 * time.Second

// coalesces reports whether p's evaluation may answer later events like it.
func coalesces(p PRPayload) bool {
	return (p.Action == "checks" || p.Action == "status") && p.SHA != ""
}

// coalesceID names the one waiting evaluation of a PR's head for one kind
// of event. A status event names no PR and keeps its sender (the audit log
// names who set warden/mode).
func coalesceID(p PRPayload) string {
	return fmt.Sprintf("pr-coalesce:%s:%s@%s:%s", p.Action, IssueKey(p.Repo, p.PR), p.SHA, p.Sender)
}

// enqueueCoalesced queues p's evaluation after CoalesceDelay, or joins the
// one already waiting for the same head. An evaluation that has started
// may have read the head before this event's news: then this one is queued
// on its own, as any event is.
func (q *Queue) enqueueCoalesced(ctx context.Context, task *asynq.Task, p PRPayload) error {
	id := coalesceID(p)
	_, err := q.client.EnqueueContext(ctx, task, asynq.TaskID(id), asynq.ProcessIn(CoalesceDelay))
	if !errors.Is(err, asynq.ErrTaskIDConflict) {
		return err
	}
	info, err := q.inspector.GetTaskInfo(QueueCritical, id)
	if err == nil && notStarted(info.State) {
		return nil // that evaluation reads GitHub after this event: it answers it
	}
	if err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
		return fmt.Errorf("look up evaluation %s: %w", id, err)
	}
	return q.enqueueOnce(ctx, task)
}

// notStarted: a task in these states has read nothing yet and runs within
// CoalesceDelay. One waiting to retry may wait far longer: an event is not
// held back behind its backoff.
func notStarted(s asynq.TaskState) bool {
	return s == asynq.TaskStatePending || s == asynq.TaskStateScheduled
}
