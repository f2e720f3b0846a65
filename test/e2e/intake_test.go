package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/harness"
)

// labeledAs builds issue n's labeled delivery with the given delivery id.
func (w *world) labeledAs(n int, id string) *http.Request {
	return w.LabeledRequest(n, id, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
}

// GitHub retries and fans out: the same delivery many times at once, and
// other deliveries for the same issue, become one task, one PR.
func TestConcurrentDeliveriesQueueOnce(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(happyScript)
	w.GH.AddIssue(repo, 90, "Add returns the difference", "calc.Add(2, 3) returns -1.", "alice", "warden:maintenance")
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for i := range 16 {
		id := "same-delivery"
		if i%4 == 3 {
			id = fmt.Sprintf("other-delivery-%d", i)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.DefaultClient.Do(w.labeledAs(90, id))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			codes[resp.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[http.StatusAccepted] != 1 || codes[http.StatusOK] != 15 {
		t.Fatalf("codes = %v, want one 202 and fifteen 200", codes)
	}
	w.OutcomeOf(90, 90*time.Second)
	if n := len(w.GH.Pulls(repo)); n != 1 {
		t.Fatalf("PRs = %d, want 1", n)
	}
	if n := len(w.Records(90)); n != 1 {
		t.Fatalf("outcome comments = %d, want 1", n)
	}
	if plans := len(w.Model.RequestsFor("plan")); plans != 1 {
		t.Fatalf("plan requests = %d, want 1", plans)
	}
}

// ownRedis runs a redis-server this test may kill; it returns its address
// and a function that stops it.
func ownRedis(t *testing.T, addr string) func() {
	t.Helper()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server (install the redis-server package): %v", err)
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait() }
	t.Cleanup(stop)
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return stop
		}
		if i > 100 {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (w *world) get(path string) int {
	resp, err := http.Get(w.Bot.URL() + path)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// With Redis gone, Warden says so: /readyz and webhooks answer 503, so
// GitHub records a failed delivery it can redeliver; once Redis is back,
// the redelivery is queued. Nothing is lost.
func TestDeadRedisAnswers503(t *testing.T) {
	addr := harness.FreeAddr(t)
	stop := ownRedis(t, addr)
	w := newWorld(t, calcRepo(), func(env map[string]string) { env["WARDEN_REDIS_URL"] = "redis://" + addr + "/0" })
	w.Model.Script(happyScript)
	if code := w.get("/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz = %d with Redis up", code)
	}
	stop()
	w.Eventually(10*time.Second, func() bool { return w.get("/readyz") == http.StatusServiceUnavailable }, "/readyz not 503 with Redis down")
	w.GH.AddIssue(repo, 91, "Add returns the difference", "calc.Add(2, 3) returns -1.", "alice", "warden:maintenance")
	resp, err := http.DefaultClient.Do(w.labeledAs(91, "while-redis-is-down"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("webhook with Redis down = %d, want 503", resp.StatusCode)
	}
	ownRedis(t, addr)
	w.Eventually(20*time.Second, func() bool { return w.get("/readyz") == http.StatusOK }, "/readyz not 200 after Redis came back")
	w.Eventually(20*time.Second, func() bool {
		resp, err := http.DefaultClient.Do(w.labeledAs(91, "while-redis-is-down")) // GitHub's redelivery
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusAccepted
	}, "the redelivery was not queued")
	if rec := w.OutcomeOf(91, 90*time.Second); !strings.Contains(string(rec.Outcome), "completed") {
		t.Fatalf("record = %+v", rec)
	}
}
