package metrics

import (
	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
)

// QueueCollector reports asynq queue sizes and the paused state at scrape
// time, so the numbers are read from Redis rather than kept in memory.
type QueueCollector struct {
	Inspector *asynq.Inspector
	Queues    []string
}

var (
	queueSize   = prometheus.NewDesc("warden_queue_tasks", "Tasks in a queue by state.", []string{"queue", "state"}, nil)
	queuePaused = prometheus.NewDesc("warden_queue_paused", "1 when the queue is paused after systemic failures.", []string{"queue"}, nil)
)

// Describe implements prometheus.Collector.
func (c QueueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queueSize; ch <- queuePaused }

// Collect implements prometheus.Collector.
func (c QueueCollector) Collect(ch chan<- prometheus.Metric) {
	for _, q := range c.Queues {
		info, err := c.Inspector.GetQueueInfo(q)
		if err != nil {
			continue // a queue that was never used has no info yet
		}
		for state, n := range map[string]int{"pending": info.Pending, "active": info.Active, "scheduled": info.Scheduled, "retry": info.Retry, "archived": info.Archived} {
			ch <- prometheus.MustNewConstMetric(queueSize, prometheus.GaugeValue, float64(n), q, state)
		}
		paused := 0.0
		if info.Paused {
			paused = 1
		}
		ch <- prometheus.MustNewConstMetric(queuePaused, prometheus.GaugeValue, paused, q)
	}
}
