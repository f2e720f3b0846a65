package e2e

import (
	"context"
	"encoding/json"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/harness"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
)

// A model reply that hangs past timeouts.stall is cut off by the stall
// watchdog, Implement restarts, and the task completes on the retry.
func TestStalledReplyIsRetried(t *testing.T) {
	w := newWorld(t, withConfig("test: go test ./...\nmax_fix_attempts: 2\ntimeouts:\n  stall: 2s\n  heartbeat: 1s\n"))
	var implements atomic.Int32
	var hungAt atomic.Value
	w.Model.Script(func(r fakemodel.Request) fakemodel.Reply {
		if r.Stage == "implement" && implements.Add(1) == 1 {
			hungAt.Store(time.Now())
			return fakemodel.Reply{Hang: 5 * time.Minute}
		}
		return happyScript(r)
	})
	events := w.observe()
	w.Label(50, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(50, 120*time.Second)
	if rec.Outcome != outcome.Completed || rec.PR == 0 {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	if n := implements.Load(); n != 2 {
		t.Fatalf("implement requests = %d, want 2 (one hung, one retried)", n)
	}
	logs := w.Bot.Logs()
	if !strings.Contains(logs, "stalled") {
		t.Fatalf("no stall event logged:\n%s", tail(logs, 4000))
	}
	w.Eventually(10*time.Second, func() bool { return events.has("stalled", "acme/calc#50", "Implement") }, "no stalled event published for bot observe")
	// The detection latency, for the record (not asserted: timing is not
	// a test's business): from the hung request's arrival to the event.
	if at, ok := events.at("stalled", "acme/calc#50"); ok {
		t.Logf("stall event %d ms after the hung request arrived (timeouts.stall 2000 ms)", at.Sub(hungAt.Load().(time.Time)).Milliseconds())
	}
}

// A panic inside a stage is contained: the outcome comment names the
// stage, and the worker goes on to the next task.
func TestPanicInStageBecomesOutcome(t *testing.T) {
	w := newWorld(t, calcRepo(), chaosBinary("panic:Security"))
	w.Model.Script(happyScript)
	for _, n := range []int{51, 52} {
		w.Label(n, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
		rec := w.OutcomeOf(n, 120*time.Second)
		if rec.Outcome != outcome.Escalated || rec.Stage != "Security" || rec.FailureClass != outcome.Deterministic {
			t.Fatalf("issue %d: record = %+v", n, rec)
		}
		body := w.CommentWith(n, "<!-- warden:outcome")
		if !strings.Contains(body, "Security") || !strings.Contains(body, "panic") {
			t.Fatalf("issue %d: outcome comment does not name the stage and the panic:\n%s", n, body)
		}
	}
	select {
	case <-w.Bot.Done():
		t.Fatalf("the bot died:\n%s", tail(w.Bot.Logs(), 4000))
	default:
	}
	if len(w.GH.Pulls(repo)) != 0 {
		t.Fatal("a PR was opened past a crashed Security stage")
	}
}

// The same unclassified failure three times trips the fingerprint breaker:
// Release stops after the third push instead of using all five tries of
// its aggressive policy, and the task is escalated saying why.
func TestRepeatedFailureTripsBreaker(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(happyScript)
	pushes := filepath.Join(t.TempDir(), "pushes")
	hook := "#!/bin/sh\necho push >> " + pushes + "\necho 'quota policy: this repository refuses new branches' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(w.Bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	w.Label(53, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(53, 120*time.Second)
	if rec.Outcome != outcome.Escalated || rec.Stage != "Release" || !strings.Contains(rec.Summary, "same failure happened 3 times") {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	data, _ := os.ReadFile(pushes)
	if n := strings.Count(string(data), "push"); n != 3 {
		t.Fatalf("pushes = %d, want 3", n)
	}
}

// observed collects the events every worker publishes (what `bot observe` shows).
type observed struct {
	mu sync.Mutex
	ev []jobs.Event
}

func (w *world) observe() *observed {
	w.T.Helper()
	o := &observed{}
	rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(w.T)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w.T.Cleanup(func() { cancel(); <-done; rdb.Close() })
	go func() {
		defer close(done)
		_ = jobs.Subscribe(ctx, rdb, func(e jobs.Event, _ []byte) {
			o.mu.Lock()
			o.ev = append(o.ev, e)
			o.mu.Unlock()
		})
	}()
	return o
}

func (o *observed) has(kind, task, stage string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.ev {
		if e.Kind == kind && e.Task == task && e.Stage == stage {
			return true
		}
	}
	return false
}

func (o *observed) at(kind, task string) (time.Time, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.ev {
		if e.Kind == kind && e.Task == task {
			return e.Time, true
		}
	}
	return time.Time{}, false
}

// A worktree that git calls corrupt restarts the attempt from Plan on a
// fresh one (one_for_all); corrupt again, the supervisor gives up: the
// task is escalated and listed as needing intervention until a
// maintainer's `/warden retry` resets it.
func TestCorruptWorktreeNeedsIntervention(t *testing.T) {
	w := newWorld(t, calcRepo(), chaosBinary("corrupt:Security"), func(env map[string]string) { env["WARDEN_UI_PASSWORD"] = "op-pass" })
	w.Model.Script(happyScript)
	w.Label(54, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(54, 120*time.Second)
	if rec.Outcome != outcome.Escalated || !strings.Contains(rec.Summary, "supervisor gave up") || !strings.Contains(rec.Summary, "/warden retry") {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	if plans := len(w.Model.RequestsFor("plan")); plans != 2 {
		t.Fatalf("plan requests = %d, want 2 (the attempt restarted from Plan once)", plans)
	}
	// The outcome comment is posted before the task is listed: wait for it.
	w.Eventually(10*time.Second, func() bool { return len(w.interventions()) == 1 }, "task not listed as needing intervention")
	if got := w.interventions(); got[0].Issue != 54 || got[0].State != "needs_intervention" {
		t.Fatalf("needs_intervention = %+v", got)
	}
	w.Comment(54, "/warden retry", "alice")
	w.Eventually(10*time.Second, func() bool { return len(w.interventions()) == 0 }, "retry did not reset the intervention")
}

type taskView struct {
	State string `json:"state"`
	Repo  string `json:"repo"`
	Issue int    `json:"issue"`
}

func (w *world) interventions() []taskView {
	w.T.Helper()
	req, _ := http.NewRequest(http.MethodGet, w.Bot.URL()+"/api/tasks?state=needs_intervention", nil)
	req.SetBasicAuth("admin", "op-pass")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.T.Fatal(err)
	}
	defer resp.Body.Close()
	var out []taskView
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		w.T.Fatalf("GET /api/tasks?state=needs_intervention: %d %v", resp.StatusCode, err)
	}
	return out
}
