package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// A task keeps its identity. An issue's run sometimes continues under a
// derived TaskID (a deferral, run:R#n:deferred:k; an unblock while the
// blocked run still reports): asynq then no longer knows it as run:R#n.
// Every derived id is recorded in the issue's task set, so dedupe and
// cancel find the issue's task in whatever state it is: queued, scheduled
// after a deferral, retrying or running.

func aliasKey(repo string, issue int) string { return keyPrefix + "tasks:" + IssueKey(repo, issue) }

// aliasTTL outlives the longest deferral and its run.
const aliasTTL = 7 * 24 * time.Hour

// recordAlias remembers a derived task id of the issue.
func (q *Queue) recordAlias(ctx context.Context, repo string, issue int, id string) error {
	pipe := q.flags.rdb.TxPipeline()
	pipe.SAdd(ctx, aliasKey(repo, issue), id)
	pipe.Expire(ctx, aliasKey(repo, issue), aliasTTL)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("record task %s of %s: %w", id, IssueKey(repo, issue), err)
	}
	return nil
}

// taskIDs is the issue's own id and every derived one still recorded.
func (q *Queue) taskIDs(ctx context.Context, repo string, issue int) ([]string, error) {
	ids, err := q.flags.rdb.SMembers(ctx, aliasKey(repo, issue)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read tasks of %s: %w", IssueKey(repo, issue), err)
	}
	return append([]string{RunTaskID(repo, issue)}, ids...), nil
}

// aliasState is the state of the first derived task of the issue that is
// still waiting or running ("" when none); finished ones are forgotten.
// taskState is the state of the run task id; found is false when no queue
// holds it.
func (q *Queue) taskState(id string) (state asynq.TaskState, found bool, err error) {
	info, err := q.inspector.GetTaskInfo(QueueDefault, id)
	if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("inspect task %s: %w", id, err)
	}
	return info.State, true, nil
}

// liveTask reports whether the task holding id has not finished (waiting,
// running or retrying).
func (q *Queue) liveTask(id string) (bool, error) {
	st, found, err := q.taskState(id)
	if !found || err != nil {
		return false, err
	}
	switch st {
	case asynq.TaskStateActive, asynq.TaskStatePending, asynq.TaskStateScheduled, asynq.TaskStateRetry:
		return true, nil
	}
	return false, nil
}

func (q *Queue) aliasState(ctx context.Context, repo string, issue int) (string, asynq.TaskState, error) {
	ids, err := q.taskIDs(ctx, repo, issue)
	if err != nil {
		return "", 0, err
	}
	for _, id := range ids[1:] {
		info, err := q.inspector.GetTaskInfo(QueueDefault, id)
		if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
			q.flags.rdb.SRem(ctx, aliasKey(repo, issue), id)
			continue
		}
		if err != nil {
			return "", 0, fmt.Errorf("inspect task %s: %w", id, err)
		}
		switch info.State {
		case asynq.TaskStateActive, asynq.TaskStatePending, asynq.TaskStateScheduled, asynq.TaskStateRetry:
			return id, info.State, nil
		}
		q.flags.rdb.SRem(ctx, aliasKey(repo, issue), id)
	}
	return "", 0, nil
}

// cancelOne stops one task id: deleted while it waits, flagged (by the
// caller's cancel flag) while it runs.
func (q *Queue) cancelOne(id string) (CancelResult, error) {
	info, err := q.inspector.GetTaskInfo(QueueDefault, id)
	if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
		return NothingToCancel, nil
	}
	if err != nil {
		return 0, fmt.Errorf("inspect task %s: %w", id, err)
	}
	switch info.State {
	case asynq.TaskStateActive:
		return CancelRequested, nil
	case asynq.TaskStatePending, asynq.TaskStateScheduled, asynq.TaskStateRetry:
		if err := q.inspector.DeleteTask(QueueDefault, id); err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
			return 0, fmt.Errorf("delete queued task %s: %w", id, err)
		}
		return CanceledQueued, nil
	}
	return NothingToCancel, nil
}
