// Package metrics holds Warden's Prometheus collectors, registered on one
// registry that /metrics serves. Names are stable: dashboards depend on them.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the collectors the other packages update.
type Metrics struct {
	Registry        *prometheus.Registry
	Webhooks        *prometheus.CounterVec   // event, result
	Tasks           *prometheus.CounterVec   // outcome, failure_class
	StageDuration   *prometheus.HistogramVec // stage, result
	ModelTokens     *prometheus.CounterVec   // direction
	ModelCost       prometheus.Counter
	SupervisorEvent *prometheus.CounterVec // kind
	GitHubCalls     *prometheus.CounterVec // method, code
	Spend           *prometheus.CounterVec // installation, repo
}

// New registers every collector on a fresh registry, plus the Go and process collectors.
func New() *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		Registry: r,
		Webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "warden_webhooks_total", Help: "Webhook deliveries by event and result.",
		}, []string{"event", "result"}),
		Tasks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "warden_tasks_total", Help: "Pipeline attempts by outcome and failure class.",
		}, []string{"outcome", "failure_class"}),
		StageDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "warden_stage_duration_seconds", Help: "Pipeline stage durations.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"stage", "result"}),
		ModelTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "warden_model_tokens_total", Help: "Model tokens by direction (input, output).",
		}, []string{"direction"}),
		ModelCost: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "warden_model_cost_usd_total", Help: "Model spend in US dollars.",
		}),
		SupervisorEvent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "warden_supervisor_events_total", Help: "Supervisor events (restarts, stalls, interventions, queue pauses) by kind.",
		}, []string{"kind"}),
		GitHubCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "warden_github_requests_total", Help: "GitHub REST requests by method and status code.",
		}, []string{"method", "code"}),
		Spend: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "warden_model_spend_usd_total", Help: "Model spend in US dollars charged to the ledger, by installation and repository.",
		}, []string{"installation", "repo"}),
	}
	r.MustRegister(m.Spend)
	r.MustRegister(m.Webhooks, m.Tasks, m.StageDuration, m.ModelTokens, m.ModelCost, m.SupervisorEvent, m.GitHubCalls,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
