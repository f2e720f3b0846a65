// Package bench holds Warden's whole-system benchmarks, each reported as a
// ratio against a baseline measured in the same run (make bench).
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/labstack/echo/v4"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/webhooks"
)

const concurrency = 8

// issueSeq keeps every benchmark round's issues distinct: a repeated issue
// would be answered "already queued", which is cheaper and would flatter intake.
var issueSeq atomic.Int64

type allow struct{}

func (allow) Permission(context.Context, int64, string, string, string) (string, error) {
	return "admin", nil
}

type noApp struct{}

func (noApp) BotLogin(context.Context) (string, error) { return "warden-test[bot]", nil }
func (noApp) Invalidate(int64)                         {}

// intake is the real webhook handler over real Redis, served over loopback
// HTTP; the echo instance is also returned to call in process.
func intake(b *testing.B) (*httptest.Server, *echo.Echo, *asynq.Client) {
	db := harness.RedisDB(b)
	backend, err := jobs.Open(fmt.Sprintf("redis://%s/%d", harness.RedisAddr(b), db), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { backend.Close() })
	q := jobs.NewQueue(backend)
	b.Cleanup(func() { q.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := &webhooks.Handler{Secret: []byte("bench"), Deliveries: jobs.NewDeliveries(backend.RDB, time.Hour), Log: log,
		Router: &webhooks.Router{Prefix: "warden", Queue: q, Perms: allow{}, App: noApp{}, Log: log}}
	e := echo.New()
	e.POST("/webhooks", h.ServeHTTP)
	srv := httptest.NewServer(e)
	b.Cleanup(srv.Close)
	raw := asynq.NewClient(backend.Opt)
	b.Cleanup(func() { raw.Close() })
	return srv, e, raw
}

func labeledBody(b *testing.B, issue int) []byte {
	var m map[string]any
	fixture := harness.Fixture(b, "webhooks/issues.labeled.json")
	if err := json.Unmarshal(fixture, &m); err != nil {
		b.Fatal(err)
	}
	exampleIssue.Title, _ = m["issue"].(map[string]any)["title"].(string)
	exampleIssue.Body, _ = m["issue"].(map[string]any)["body"].(string)
	m["installation"] = map[string]any{"id": 1}
	m["label"] = map[string]any{"name": "warden:maintenance"}
	m["issue"].(map[string]any)["number"] = issue
	out, _ := json.Marshal(m)
	return out
}

// run executes n operations over `concurrency` workers and returns wall time
// and the per-operation latencies.
func run(n int, op func(i int) error) (time.Duration, []time.Duration, error) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := op(i); err != nil {
					firstErr.CompareAndSwap(nil, err)
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	err, _ := firstErr.Load().(error)
	return time.Since(start), lat, err
}

func pct(lat []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), lat...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkIntakeVsEnqueue: signed issues.labeled deliveries through the real
// handler into real Redis, against raw asynq enqueues of the same tasks, same
// concurrency, same run. Reports intake/raw throughput ratio and latencies.
func BenchmarkIntakeVsEnqueue(b *testing.B) {
	srv, e, raw := intake(b)
	n := max(b.N, 200)
	bodies := make([][]byte, n)
	handlerBodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = labeledBody(b, int(issueSeq.Add(1)))
		handlerBodies[i] = labeledBody(b, int(issueSeq.Add(1)))
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency}}
	b.ResetTimer()
	rawWall, rawLat, err := run(n, func(i int) error {
		_, err := raw.Enqueue(rawTask(b, int(issueSeq.Add(1))))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	inWall, inLat, err := run(n, func(i int) error {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhooks", bytesReader(bodies[i]))
		req.Header.Set("X-GitHub-Event", "issues")
		req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("bench-%d-%d", b.N, i))
		req.Header.Set("X-Hub-Signature-256", harness.Sign([]byte("bench"), bodies[i]))
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			return fmt.Errorf("delivery %d answered %d", i, resp.StatusCode)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	hWall, _, err := run(n, func(i int) error { return inProcess(e, handlerBodies[i], fmt.Sprintf("inproc-%d-%d", b.N, i)) })
	if err != nil {
		b.Fatal(err)
	}
	rawRate, inRate := float64(n)/rawWall.Seconds(), float64(n)/inWall.Seconds()
	b.ReportMetric(inRate/rawRate, "ratio")
	b.ReportMetric(float64(n)/hWall.Seconds()/rawRate, "in-process-ratio")
	b.ReportMetric(inRate, "intake/s")
	b.ReportMetric(rawRate, "raw/s")
	b.ReportMetric(float64(pct(inLat, 0.5).Microseconds())/1000, "intake-p50-ms")
	b.ReportMetric(float64(pct(inLat, 0.99).Microseconds())/1000, "intake-p99-ms")
	b.ReportMetric(float64(pct(rawLat, 0.99).Microseconds())/1000, "raw-p99-ms")
}

// BenchmarkIntakeAt500PerSecond paces deliveries at 500/s for two seconds and
// reports the latency distribution at that load.
func BenchmarkIntakeAt500PerSecond(b *testing.B) {
	srv, _, _ := intake(b)
	const rate, seconds = 500, 2
	n := rate * seconds
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = labeledBody(b, int(issueSeq.Add(1)))
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ResetTimer()
	for iter := 0; iter < b.N; iter++ {
		lat := make([]time.Duration, n)
		var wg sync.WaitGroup
		tick := time.NewTicker(time.Second / rate)
		for i := 0; i < n; i++ {
			<-tick.C
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhooks", bytesReader(bodies[i]))
				req.Header.Set("X-GitHub-Event", "issues")
				req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("paced-%d-%d-%d", b.N, iter, i))
				req.Header.Set("X-Hub-Signature-256", harness.Sign([]byte("bench"), bodies[i]))
				t0 := time.Now()
				resp, err := client.Do(req)
				lat[i] = time.Since(t0)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}(i)
		}
		tick.Stop()
		wg.Wait()
		b.ReportMetric(float64(pct(lat, 0.5).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(pct(lat, 0.99).Microseconds())/1000, "p99-ms")
	}
}
