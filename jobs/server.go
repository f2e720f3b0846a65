package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// ServerOptions configure the asynq server.
type ServerOptions struct {
	Concurrency     int
	ShutdownTimeout time.Duration
	Log             *slog.Logger
}

// TaskCheckInterval is how long an idle worker waits before it looks for new
// tasks again (asynq sleeps between half and one and a half of it). asynq's
// default, 1 s, made a lone label wait about half a second before a worker
// took it (docs/BENCHMARKS.md, label to Plan); 200 ms costs an idle worker
// about five dequeue scripts a second on Redis.
const TaskCheckInterval = 200 * time.Millisecond

// NewServer builds the asynq server: critical status updates ahead of pipelines,
// graceful shutdown that lets running tasks finish for ShutdownTimeout and
// then hands the rest back to the queue.
func NewServer(b *Backend, o ServerOptions) *asynq.Server {
	return asynq.NewServer(b.Opt, asynq.Config{
		Concurrency:       o.Concurrency + 1, // one slot for status updates
		Queues:            map[string]int{QueueCritical: 6, QueueDefault: 3},
		TaskCheckInterval: TaskCheckInterval,
		// Tasks the fair-share gate sent back come due in about a second;
		// asynq's default 5 s check would idle a freed slot that long.
		DelayedTaskCheckInterval: time.Second,
		ShutdownTimeout:          o.ShutdownTimeout,
		Logger:                   asynqLogger{o.Log.With("component", "asynq")},
		LogLevel:                 asynq.WarnLevel,
		RetryDelayFunc:           retryDelay,
		IsFailure:                isFailure,
		ErrorHandler: asynq.ErrorHandlerFunc(func(ctx context.Context, t *asynq.Task, err error) {
			id, _ := asynq.GetTaskID(ctx)
			if isBusy(err) {
				return // not its repository's turn: routine, not a failure
			}
			o.Log.Warn("task failed", "task", id, "type", t.Type(), "err", err)
		}),
	})
}

// isFailure tells asynq which errors spend a task's retries (MaxRunRetries,
// kept for crashed workers). A run that found its issue locked did nothing
// and must wait, not fail: counted, the bounces after one crash spent most
// of the budget and a second crash archived the task, leaving the issue
// "running" for good with no outcome.
func isFailure(err error) bool { return !errors.Is(err, ErrLocked) }

// retryDelay backs off asynq-level retries: 10 s, 20 s, 40 s … ≤ 10 min.
func retryDelay(n int, err error, _ *asynq.Task) time.Duration {
	if isBusy(err) {
		return busyDelay()
	}
	d := 10 * time.Second << min(n, 6)
	return min(d, 10*time.Minute)
}

type asynqLogger struct{ l *slog.Logger }

func (a asynqLogger) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...)) }
func (a asynqLogger) Info(args ...any)  { a.l.Info(fmt.Sprint(args...)) }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...)) }
func (a asynqLogger) Error(args ...any) { a.l.Error(fmt.Sprint(args...)) }
func (a asynqLogger) Fatal(args ...any) { a.l.Error(fmt.Sprint(args...)) }
