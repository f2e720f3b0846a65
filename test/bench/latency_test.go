package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

const typeNoop = "bench:noop"

// noopWorker is the baseline: an asynq server built by jobs.NewServer (the
// configuration Warden's worker runs with, here in the benchmark's process)
// whose handler only notes when it started, and a client enqueueing to it.
func noopWorker(b *testing.B) (*asynq.Client, <-chan time.Time) {
	db := harness.RedisDB(b)
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	backend, err := jobs.Open(fmt.Sprintf("redis://%s/%d", harness.RedisAddr(b), db), discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { backend.Close() })
	started := make(chan time.Time, 1)
	mux := asynq.NewServeMux()
	mux.HandleFunc(typeNoop, func(context.Context, *asynq.Task) error { started <- time.Now(); return nil })
	srv := jobs.NewServer(backend, jobs.ServerOptions{Concurrency: 2, Log: discard})
	if err := srv.Start(mux); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Shutdown)
	client := asynq.NewClient(backend.Opt)
	b.Cleanup(func() { client.Close() })
	return client, started
}

// noopSample enqueues one no-op task and returns how long until its handler started.
func noopSample(b *testing.B, c *asynq.Client, started <-chan time.Time) time.Duration {
	t0 := time.Now()
	if _, err := c.Enqueue(asynq.NewTask(typeNoop, nil), asynq.Queue(jobs.QueueDefault)); err != nil {
		b.Fatal(err)
	}
	select {
	case t1 := <-started:
		return t1.Sub(t0)
	case <-time.After(30 * time.Second):
		b.Fatal("the no-op task did not start within 30 s")
	}
	return 0
}

// blockPlan makes the attempt end right after its Plan (outcome blocked, not
// a failure): what follows the Plan is outside the measure, and the next
// sample starts on an idle worker, as a lone label does.
func blockPlan(req fakemodel.Request) fakemodel.Reply {
	if req.Stage != "plan" {
		return world.Text("?")
	}
	return world.Text("```json\n" + `{"decision":"block","summary":"Waits for a maintainer's decision.","approach":"none yet","files":[],"obstacle":{"kind":"decision","detail":"benchmark","task":""},"discoveries":[],"recommendation":""}` + "\n```\n")
}

// planSample labels a new issue and returns how long until the fake model
// received its Plan request; it waits for the attempt to finish.
func planSample(b *testing.B, w *world.World) time.Duration {
	before := len(w.Model.RequestsFor("plan"))
	n := nextIssue()
	t0 := label(w, n)
	w.Eventually(60*time.Second, func() bool { return len(w.Model.RequestsFor("plan")) > before }, "no Plan request")
	t1 := w.Model.RequestsFor("plan")[before].Received
	finished(w, 90*time.Second, "blocked", n)
	return t1.Sub(t0)
}

// BenchmarkLabelToPlan: a signed issues.labeled delivery to the real bot
// until the fake model receives the Plan request (both timestamps taken in
// this process), against the baseline of an asynq no-op task on the same
// server configuration, enqueue to handler start. Samples alternate, one of
// each per iteration, each on an idle worker; the attempts end right after
// their Plan (blockPlan).
func BenchmarkLabelToPlan(b *testing.B) {
	w := world.New(b, nil, concurrencyOpt(2))
	w.Model.Script(blockPlan)
	client, started := noopWorker(b)
	planSample(b, w) // warm: the mirror is cloned
	noopSample(b, client, started)
	plan := make([]time.Duration, 0, b.N)
	noop := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		noop = append(noop, noopSample(b, client, started))
		plan = append(plan, planSample(b, w))
	}
	b.StopTimer()
	b.ReportMetric(ms(pct(plan, 0.5)), "plan-p50-ms")
	b.ReportMetric(ms(pct(plan, 0.99)), "plan-p99-ms")
	b.ReportMetric(ms(pct(noop, 0.5)), "noop-p50-ms")
	b.ReportMetric(ms(pct(noop, 0.99)), "noop-p99-ms")
	b.ReportMetric(ms(pct(plan, 0.5))/max(ms(pct(noop, 0.5)), 0.001), "p50-ratio")
	b.ReportMetric(ms(pct(plan, 0.5)-pct(noop, 0.5)), "warden-added-p50-ms")
}
