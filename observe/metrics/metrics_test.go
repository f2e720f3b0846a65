package metrics

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
)

// scrape is /metrics of reg, as Prometheus reads it.
func scrape(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

func wantLines(t *testing.T, body string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(body, l+"\n") {
			t.Errorf("/metrics lacks %q", l)
		}
	}
}

// The names and labels dashboards and alerts are built on.
func TestStableNames(t *testing.T) {
	m := New()
	m.Webhooks.WithLabelValues("issues", "queued").Inc()
	m.Tasks.WithLabelValues("escalated", "model").Add(2)
	m.StageDuration.WithLabelValues("plan", "ok").Observe(0.3)
	m.ModelTokens.WithLabelValues("input").Add(1200)
	m.ModelCost.Add(0.25)
	m.SupervisorEvent.WithLabelValues("restarted").Inc()
	m.GitHubCalls.WithLabelValues("GET", "200").Inc()
	wantLines(t, scrape(t, m.Registry),
		`warden_webhooks_total{event="issues",result="queued"} 1`,
		`warden_tasks_total{failure_class="model",outcome="escalated"} 2`,
		`warden_stage_duration_seconds_bucket{result="ok",stage="plan",le="0.5"} 1`,
		`warden_stage_duration_seconds_count{result="ok",stage="plan"} 1`,
		`warden_model_tokens_total{direction="input"} 1200`,
		`warden_model_cost_usd_total 0.25`,
		`warden_supervisor_events_total{kind="restarted"} 1`,
		`warden_github_requests_total{code="200",method="GET"} 1`,
	)
	if body := scrape(t, m.Registry); !strings.Contains(body, "go_goroutines ") || !strings.Contains(body, "process_") {
		t.Error("the Go and process collectors are not registered")
	}
}

func backend(t *testing.T) *jobs.Backend {
	t.Helper()
	b, err := jobs.Open("", slog.New(slog.NewTextHandler(io.Discard, nil))) // embedded Redis
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// Queue sizes and the paused flag are read from Redis at scrape time; a
// queue never used is left out, not an error.
func TestQueueCollector(t *testing.T) {
	b := backend(t)
	q := jobs.NewQueue(b)
	defer q.Close()
	ctx := context.Background()
	for _, n := range []int{1, 2} {
		if _, err := q.EnqueueRun(ctx, jobs.RunPayload{Repo: "acme/app", Issue: n, Mode: "maintenance"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Inspector().PauseQueue(jobs.QueueDefault); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(QueueCollector{Inspector: q.Inspector(), Queues: []string{jobs.QueueDefault, "never-used"}})
	body := scrape(t, reg)
	wantLines(t, body,
		`warden_queue_tasks{queue="default",state="pending"} 2`,
		`warden_queue_tasks{queue="default",state="active"} 0`,
		`warden_queue_paused{queue="default"} 1`,
	)
	if strings.Contains(body, "never-used") {
		t.Errorf("an unused queue is reported:\n%s", body)
	}
	if err := q.Inspector().UnpauseQueue(jobs.QueueDefault); err != nil {
		t.Fatal(err)
	}
	wantLines(t, scrape(t, reg), `warden_queue_paused{queue="default"} 0`)
}

// Only the Top most frequent fingerprints become labels; Redis failing
// leaves them out and the scrape still succeeds.
func TestFingerprintCollector(t *testing.T) {
	b := backend(t)
	h := jobs.NewHistory(b.RDB)
	ctx := context.Background()
	fail := func(fp string, n int) {
		for range n {
			rec := outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.TestFailure, Fingerprint: fp}
			if err := h.Append(ctx, "acme/app", 7, rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	fail("often", 3)
	fail("rarely", 1)
	if err := h.Append(ctx, "acme/app", 8, outcome.Record{Outcome: outcome.Completed, Fingerprint: "done"}); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(FingerprintCollector{History: h, Top: 1})
	body := scrape(t, reg)
	wantLines(t, body, `warden_failure_fingerprint_top{failure_class="test_failure",fingerprint="often",repo="acme/app"} 3`)
	if strings.Contains(body, "rarely") || strings.Contains(body, "done") {
		t.Fatalf("beyond the top or a completed run reported:\n%s", body)
	}
	b.Close()
	if body := scrape(t, reg); strings.Contains(body, "warden_failure_fingerprint_top{") {
		t.Fatalf("fingerprints served with Redis down:\n%s", body)
	}
}
