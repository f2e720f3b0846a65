package observe

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/observe/metrics"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/supervisor"
)

type recorder struct {
	mu     sync.Mutex
	events []jobs.Event
	block  chan struct{} // when set, Publish waits on it
}

func (r *recorder) Publish(_ context.Context, e jobs.Event) {
	if r.block != nil {
		<-r.block
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) wait(t *testing.T, n int) []jobs.Event {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		r.mu.Lock()
		if len(r.events) >= n {
			defer r.mu.Unlock()
			return append([]jobs.Event(nil), r.events...)
		}
		r.mu.Unlock()
	}
	t.Fatalf("fewer than %d events published", n)
	return nil
}

// One event reaches the log (redacted, at its level), the counter and the
// publisher.
func TestSupervisorEventFansOut(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	m := metrics.New()
	pub := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewSink(ctx, log, m, pub, comments.NewRedactor("sk-secret-123456"))
	task := pipeline.Task{Repo: "acme/app", Issue: 7}
	s.Supervisor(task, supervisor.Event{Time: time.Now(), Kind: supervisor.EventPanicked, Supervisor: "task", Child: "implement",
		Restarts: 2, Err: errors.New("panic near sk-secret-123456")})
	s.Supervisor(task, supervisor.Event{Time: time.Now(), Kind: supervisor.EventStarted, Child: "plan"})
	got := pub.wait(t, 2)
	if e := got[0]; e.Kind != "panicked" || e.Task != "acme/app#7" || e.Stage != "implement" || strings.Contains(e.Err, "sk-secret") || e.Err == "" {
		t.Fatalf("published %+v", e)
	}
	out := logs.String()
	if strings.Contains(out, "sk-secret") || !strings.Contains(out, `"level":"WARN"`) || strings.Contains(out, `"event":"started"`) {
		t.Fatalf("log:\n%s", out)
	}
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `warden_supervisor_events_total{kind="panicked"} 1`) {
		t.Fatalf("counter not incremented:\n%s", rec.Body.String())
	}
}

// A publisher that hangs never slows a supervisor: events beyond the
// buffer are dropped and counted.
func TestSlowPublisherDropsInsteadOfBlocking(t *testing.T) {
	pub := &recorder{block: make(chan struct{})}
	defer close(pub.block)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewSink(ctx, slog.New(slog.DiscardHandler), nil, pub, comments.NewRedactor())
	done := make(chan struct{})
	go func() {
		for range 2000 {
			s.Supervisor(pipeline.Task{Repo: "a/b", Issue: 1}, supervisor.Event{Kind: supervisor.EventStalled})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Supervisor blocked on a hung publisher")
	}
	if d := s.Dropped(); d < 2000-1025 {
		t.Fatalf("dropped %d", d)
	}
}

func TestLevels(t *testing.T) {
	for k, want := range map[supervisor.EventKind]slog.Level{
		supervisor.EventStarted: slog.LevelDebug, supervisor.EventSupervisorShutdown: slog.LevelDebug,
		supervisor.EventRestarted: slog.LevelInfo, supervisor.EventQueuePaused: slog.LevelWarn, supervisor.EventNeedsIntervention: slog.LevelWarn,
	} {
		if got := levelOf(k); got != want {
			t.Errorf("%s: %v, want %v", k, got, want)
		}
	}
}

func TestLine(t *testing.T) {
	e := jobs.Event{Time: time.Date(2026, 1, 1, 12, 30, 1, 5e6, time.UTC), Worker: "w1", Kind: "stalled", Task: "acme/app#7", Stage: "test", Err: "no heartbeat"}
	if got := Line(e); !strings.HasPrefix(got, "12:30:01.005 w1 ") || !strings.Contains(got, "task=acme/app#7 stage=test no heartbeat") {
		t.Fatalf("%q", got)
	}
}
