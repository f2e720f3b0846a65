package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/harness"
)

// pickupWorker is noopWorker with a given idle poll interval, on its own
// Redis database, and a client for that database.
func pickupWorker(b *testing.B, interval time.Duration) (*asynq.Client, <-chan time.Time, redis.UniversalClient, func()) {
	db := harness.RedisDB(b)
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	backend, err := jobs.Open(fmt.Sprintf("redis://%s/%d", harness.RedisAddr(b), db), discard)
	if err != nil {
		b.Fatal(err)
	}
	started := make(chan time.Time, 1)
	mux := asynq.NewServeMux()
	mux.HandleFunc(typeNoop, func(context.Context, *asynq.Task) error { started <- time.Now(); return nil })
	srv := jobs.NewServer(backend, jobs.ServerOptions{Concurrency: 2, Log: discard, TaskCheckInterval: interval})
	if err := srv.Start(mux); err != nil {
		b.Fatal(err)
	}
	client := asynq.NewClient(backend.Opt)
	b.Cleanup(func() { client.Close(); backend.Close() })
	var once sync.Once
	stop := func() { once.Do(srv.Shutdown) }
	b.Cleanup(stop)
	return client, started, backend.RDB, stop
}

// idleCommands is how many commands Redis runs per second for a worker
// that has nothing to do: the price of a shorter poll.
func idleCommands(b *testing.B, rdb redis.UniversalClient) float64 {
	count := func() float64 {
		info, err := rdb.Info(context.Background(), "stats").Result()
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(l, "total_commands_processed:"); ok {
				n, _ := strconv.ParseFloat(v, 64)
				return n
			}
		}
		return 0
	}
	before, t0 := count(), time.Now()
	time.Sleep(2 * time.Second)
	return (count() - before - 1) / time.Since(t0).Seconds()
}

// BenchmarkPickup: enqueue to handler start of a no-op task on an idle
// worker built by jobs.NewServer, at a random phase of its poll, with the
// interval before issue #30 (200 ms) and with today's jobs.TaskCheckInterval,
// alternating samples in the same run; and the idle Redis commands per
// second each costs.
func BenchmarkPickup(b *testing.B) {
	const before = 200 * time.Millisecond
	oldC, oldStarted, rdb, stopOld := pickupWorker(b, before)
	newC, newStarted, _, stopNew := pickupWorker(b, jobs.TaskCheckInterval)
	noopSample(b, oldC, oldStarted)
	noopSample(b, newC, newStarted)
	var old, cur []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		time.Sleep(rand.N(before)) // a random phase of either poll
		old = append(old, noopSample(b, oldC, oldStarted))
		time.Sleep(rand.N(before))
		cur = append(cur, noopSample(b, newC, newStarted))
	}
	b.StopTimer()
	b.ReportMetric(ms(pct(old, 0.5)), "before-p50-ms")
	b.ReportMetric(ms(pct(old, 0.99)), "before-p99-ms")
	b.ReportMetric(ms(pct(cur, 0.5)), "pickup-p50-ms")
	b.ReportMetric(ms(pct(cur, 0.99)), "pickup-p99-ms")
	b.ReportMetric(ms(pct(cur, 0.5))/max(ms(pct(old, 0.5)), 0.001), "after/before-p50")
	// One Redis: each worker's idle rate is measured with it alone.
	stopOld()
	b.ReportMetric(idleCommands(b, rdb), "idle-cmds/s")
	stopNew()
	_, _, rdb, _ = pickupWorker(b, before)
	b.ReportMetric(idleCommands(b, rdb), "before-idle-cmds/s")
}
