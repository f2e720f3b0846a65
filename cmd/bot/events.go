package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/metrics"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/supervisor"
)

// eventSink fans supervisor events out to the log, the Prometheus counter
// and the Redis channel `bot observe` reads. Supervisors call it on their
// own goroutine, so publishing is handed to a drainer and never blocks:
// when Redis lags, events are dropped (and counted), tasks are not slowed.
type eventSink struct {
	log      *slog.Logger
	metrics  *metrics.Metrics
	pub      *jobs.Publisher
	redactor *comments.Redactor
	ch       chan jobs.Event
	dropped  atomic.Int64
}

func newEventSink(ctx context.Context, log *slog.Logger, m *metrics.Metrics, pub *jobs.Publisher, r *comments.Redactor) *eventSink {
	s := &eventSink{log: log, metrics: m, pub: pub, redactor: r, ch: make(chan jobs.Event, 1024)}
	go s.drain(ctx)
	return s
}

func (s *eventSink) drain(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-s.ch:
			s.pub.Publish(ctx, e)
		}
	}
}

// supervisor records one supervisor event of task t.
func (s *eventSink) supervisor(t pipeline.Task, e supervisor.Event) {
	task := fmt.Sprintf("%s#%d", t.Repo, t.Issue)
	errText := ""
	if e.Err != nil {
		errText = s.redactor.Redact(e.Err.Error())
	}
	s.log.Log(context.Background(), levelOf(e.Kind), "supervisor event", "event", string(e.Kind), "supervisor", e.Supervisor,
		"child", e.Child, "repo", t.Repo, "issue", t.Issue, "task", task, "restarts", e.Restarts, "err", errText)
	if s.metrics != nil {
		s.metrics.SupervisorEvent.WithLabelValues(string(e.Kind)).Inc()
	}
	s.publish(jobs.Event{Time: e.Time.UTC(), Kind: string(e.Kind), Task: task, Stage: e.Child, Err: errText,
		Fields: map[string]any{"supervisor": e.Supervisor, "restarts": e.Restarts}})
}

// publish queues e for `bot observe`, dropping it when the queue is full.
func (s *eventSink) publish(e jobs.Event) {
	select {
	case s.ch <- e:
	default:
		if s.dropped.Add(1)%100 == 1 {
			s.log.Warn("observe events dropped: Redis publishing lags", "dropped", s.dropped.Load())
		}
	}
}

// levelOf keeps routine lifecycle events at debug and what a maintainer or
// operator should see at warn.
func levelOf(k supervisor.EventKind) slog.Level {
	switch k {
	case supervisor.EventStarted, supervisor.EventExited, supervisor.EventSupervisorStarted, supervisor.EventSupervisorShutdown:
		return slog.LevelDebug
	case supervisor.EventRestarted:
		return slog.LevelInfo
	}
	return slog.LevelWarn
}
