package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// UnblockDelay is how long after its blocker closed a blocked issue runs
// when its own run was still finishing: that run is the attempt that found
// it blocked, and holds the issue's TaskID until its handler returns.
const UnblockDelay = 5 * time.Second

// EnqueueUnblocked queues issue p again because blocker closed. When the
// issue's run is still active (the blocked attempt reporting, a race that
// lost the unblock when the closed event was quick), it queues a follow-up
// under a derived TaskID, as deferrals do; the run lock keeps the two
// apart. A run still waiting in the queue will see the blocker closed by
// itself, so nothing more is queued then.
func (q *Queue) EnqueueUnblocked(ctx context.Context, p RunPayload, blocker int) (EnqueueResult, error) {
	res, err := q.EnqueueRun(ctx, p)
	if err != nil || res == Queued {
		return res, err
	}
	waiting, err := q.Waiting(RunTaskID(p.Repo, p.Issue))
	if err != nil || waiting {
		return res, err
	}
	if _, st, err := q.aliasState(ctx, p.Repo, p.Issue); err != nil || (st != 0 && st != asynq.TaskStateActive) {
		return res, err // a deferred run still waits and will see the blocker closed
	}
	id := fmt.Sprintf("%s:unblocked:%d", RunTaskID(p.Repo, p.Issue), blocker)
	task, err := NewRunTask(p, asynq.TaskID(id), asynq.ProcessIn(UnblockDelay))
	if err != nil {
		return 0, err
	}
	if err := q.recordAlias(ctx, p.Repo, p.Issue, id); err != nil {
		return 0, err
	}
	if _, err := q.client.EnqueueContext(ctx, task); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return 0, fmt.Errorf("enqueue unblocked %s: %w", p.Key(), err)
	}
	return Queued, nil
}
