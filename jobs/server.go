package jobs

import (
	"cmp"
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
	// TaskCheckInterval overrides the idle poll (benchmarks compare); 0
	// is TaskCheckInterval.
	TaskCheckInterval time.Duration
}

// TaskCheckInterval is how long an idle worker waits before it looks for new
// tasks again (asynq sleeps between half and one and a half of it, in a
// sleep nothing can cut short, so a task enqueued to an idle worker waits
// about half an interval). asynq's default, 1 s, made a lone label wait about
// half a second; 200 ms still left 120 ms of a task's own time in the queue
// (issue #30). 20 ms puts the median wait near 10 ms for about fifty cheap
// dequeue scripts a second per idle server on Redis
// (BenchmarkPickup reports both).
const TaskCheckInterval = 20 * time.Millisecond

// Server is Warden's worker: two asynq servers in one process, one for
// pipelines and one for the quick tasks (status updates, PR and closed
// events). asynq shares one server's slots among its queues, so with one
// server a burst of pipelines took every slot (the "+1 for status updates"
// too) and a label's 👀 and "queued" waited for a whole pipeline to finish.
type Server struct{ runs, quick *asynq.Server }

// quickConcurrency is how many status, PR and closed-issue tasks run at once.
const quickConcurrency = 4

// NewServer builds the worker: o.Concurrency pipelines at once, quick tasks
// on their own slots, graceful shutdown that lets running tasks finish for
// ShutdownTimeout and then hands the rest back to the queue.
func NewServer(b *Backend, o ServerOptions) *Server {
	return &Server{
		runs:  asynq.NewServer(b.Opt, serverConfig(o, max(o.Concurrency, 1), QueueDefault)),
		quick: asynq.NewServer(b.Opt, serverConfig(o, quickConcurrency, QueueCritical)),
	}
}

func serverConfig(o ServerOptions, concurrency int, queue string) asynq.Config {
	return asynq.Config{
		Concurrency:       concurrency,
		Queues:            map[string]int{queue: 1},
		TaskCheckInterval: cmp.Or(o.TaskCheckInterval, TaskCheckInterval),
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
	}
}

// Start runs both servers with the same handler.
func (s *Server) Start(h asynq.Handler) error {
	if err := s.quick.Start(h); err != nil {
		return err
	}
	if err := s.runs.Start(h); err != nil {
		s.quick.Shutdown()
		return err
	}
	return nil
}

// Shutdown stops taking tasks and waits for running ones (ShutdownTimeout).
func (s *Server) Shutdown() {
	done := make(chan struct{})
	go func() { s.quick.Shutdown(); close(done) }()
	s.runs.Shutdown()
	<-done
}

// isFailure tells asynq which errors spend a task's retries (MaxRunRetries,
// kept for crashed workers). A run that found its issue locked did nothing
// and must wait, not fail: counted, the bounces after one crash spent most
// of the budget and a second crash archived the task, leaving the issue
// "running" for good with no outcome.
// A run of a paused installation waits the same way.
func isFailure(err error) bool { return !errors.Is(err, ErrLocked) && !errors.Is(err, ErrPaused) }

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
