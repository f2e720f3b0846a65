package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/warden-bot/warden/jobs"
)

// FingerprintCollector reports the most frequent failure fingerprints, read
// from Redis at scrape time. Fingerprints are unbounded over time, so only
// the top Top are ever labels: the dashboard's table, not a time series per
// failure ever seen.
type FingerprintCollector struct {
	History *jobs.History
	Top     int
}

var topFingerprint = prometheus.NewDesc("warden_failure_fingerprint_top",
	"Failures of the most frequent failure fingerprints (top N, all repositories).",
	[]string{"failure_class", "repo", "fingerprint"}, nil)

// Describe implements prometheus.Collector.
func (c FingerprintCollector) Describe(ch chan<- *prometheus.Desc) { ch <- topFingerprint }

// Collect implements prometheus.Collector.
func (c FingerprintCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	top, err := c.History.TopFingerprints(ctx, c.Top)
	if err != nil {
		return // Redis down: /readyz says so; the scrape still serves the rest
	}
	for _, f := range top {
		ch <- prometheus.MustNewConstMetric(topFingerprint, prometheus.GaugeValue, f.Count, f.Class, f.Repo, f.Fingerprint)
	}
}
