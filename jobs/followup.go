package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// ReasonFollowup queues a follow-up attempt on Warden's open PR (review
// feedback, failing CI, a conflict); RunPayload.PR names the PR.
const ReasonFollowup = "followup"

// EnqueueNext queues the issue's next follow-up from inside a running one,
// under a derived TaskID: the running task still holds the issue's own id.
// The run lock keeps the two from running at once.
func (q *Queue) EnqueueNext(ctx context.Context, p RunPayload) error {
	p.Reason = ReasonFollowup
	id := fmt.Sprintf("%s:next:%d", RunTaskID(p.Repo, p.Issue), time.Now().UnixNano())
	task, err := NewRunTask(p, asynq.TaskID(id))
	if err != nil {
		return err
	}
	if _, err := q.client.EnqueueContext(ctx, task); err != nil {
		return fmt.Errorf("enqueue next follow-up of %s: %w", p.Key(), err)
	}
	return nil
}

// EnqueueSweep is the backstop for feedback that found the issue's task
// running just as it finished: one delayed follow-up per issue, under its
// own TaskID, that answers whatever is still pending (or nothing, at no
// cost). Already queued is fine.
func (q *Queue) EnqueueSweep(ctx context.Context, p RunPayload) error {
	p.Reason = ReasonFollowup
	task, err := NewRunTask(p, asynq.TaskID(RunTaskID(p.Repo, p.Issue)+":sweep"), asynq.ProcessIn(5*time.Second))
	if err != nil {
		return err
	}
	if _, err := q.client.EnqueueContext(ctx, task); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("enqueue follow-up sweep of %s: %w", p.Key(), err)
	}
	return nil
}
