// Package observe carries supervisor events to the people watching: the
// log, the Prometheus counter and the Redis channel `bot observe` streams.
package observe

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/observe/metrics"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/sandbox/egress"
	"github.com/warden-bot/warden/supervisor"
)

// publisher is where events go for `bot observe` (jobs.Publisher).
type publisher interface {
	Publish(ctx context.Context, e jobs.Event)
}

// Sink fans supervisor events out to the log, the Prometheus counter
// and the Redis channel `bot observe` reads. Supervisors call it on their
// own goroutine, so publishing is handed to a drainer and never blocks:
// when Redis lags, events are dropped (and counted), tasks are not slowed.
type Sink struct {
	log      *slog.Logger
	metrics  *metrics.Metrics
	pub      publisher
	redactor *comments.Redactor
	ch       chan jobs.Event
	dropped  atomic.Int64
}

// NewSink starts the drainer, which stops with ctx. m may be nil.
func NewSink(ctx context.Context, log *slog.Logger, m *metrics.Metrics, pub publisher, r *comments.Redactor) *Sink {
	s := &Sink{log: log, metrics: m, pub: pub, redactor: r, ch: make(chan jobs.Event, 1024)}
	go s.drain(ctx)
	return s
}

func (s *Sink) drain(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-s.ch:
			s.pub.Publish(ctx, e)
		}
	}
}

// Supervisor records one supervisor event of task t (pipeline.Pipeline.OnEvent).
func (s *Sink) Supervisor(t pipeline.Task, e supervisor.Event) {
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

// AgentStep publishes an agent CLI's last steps to `bot observe`
// (pipeline.Pipeline.OnStep).
func (s *Sink) AgentStep(t pipeline.Task, stage, steps string) {
	task := t.Repo + "#" + strconv.Itoa(t.Issue)
	s.publish(jobs.Event{Time: time.Now().UTC(), Kind: "agent_step", Task: task, Stage: stage, Fields: map[string]any{"steps": s.redactor.Redact(steps)}})
}

// Dropped counts the events not published because the queue was full.
func (s *Sink) Dropped() int64 { return s.dropped.Load() }

// publish queues e for `bot observe`, dropping it when the queue is full.
func (s *Sink) publish(e jobs.Event) {
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

// Egress publishes one connection a task's sandbox asked the egress proxy
// for (pipeline.Pipeline.OnEgress).
func (s *Sink) Egress(t pipeline.Task, stage string, c egress.Conn) {
	task := t.Repo + "#" + strconv.Itoa(t.Issue)
	s.publish(jobs.Event{Time: c.Time, Kind: "egress", Task: task, Stage: stage, Err: c.Reason,
		Fields: map[string]any{"host": c.Host, "port": c.Port, "ip": c.IP, "method": c.Method, "verdict": c.Verdict,
			"bytes_out": c.BytesOut, "bytes_in": c.BytesIn}})
}
