package chaos

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/world"
)

// A stall watchdog a test can wait out (CONTRACT §9 timeouts).
const stallConfig = "test: go test ./...\nmax_fix_attempts: 2\ntimeouts:\n  stall: 2s\n  heartbeat: 1s\n"

// fault answers the first request of stage with bad, then the happy script.
func fault(stage string, bad fakemodel.Reply) func(fakemodel.Request) fakemodel.Reply {
	var once sync.Once
	return func(req fakemodel.Request) fakemodel.Reply {
		hit := false
		if req.Stage == stage {
			once.Do(func() { hit = true })
		}
		if hit {
			return bad
		}
		return world.HappyScript(req)
	}
}

// Transient model faults, one issue each and all at once: a 429 with
// Retry-After, a 500, a reply that hangs past the stall timeout and a
// reply cut off mid-JSON on the wire. Each stage is tried again (no sooner
// than the server asked) and each issue completes with one PR and one
// outcome; then the next issue completes as usual.
func TestModelTransientFaultsAreRetried(t *testing.T) {
	t.Parallel()
	w := world.New(t, world.WithConfig(stallConfig), func(env map[string]string) { env["WARDEN_CONCURRENCY"] = "4" })
	r := newRouter(w)
	cases := []struct {
		n          int
		tag, stage string
		bad        fakemodel.Reply
		minGap     time.Duration // between the failed request and its retry
	}{
		{201, "m429", "plan", fakemodel.Reply{Status: 429, RetryAfter: "2"}, 2 * time.Second},
		{202, "m500", "implement", fakemodel.Reply{Status: 500}, 500 * time.Millisecond},
		{203, "mhang", "review", fakemodel.Reply{Hang: time.Minute}, 2 * time.Second},
		{204, "mcut", "plan", fakemodel.Reply{Truncated: true}, 500 * time.Millisecond},
	}
	for _, c := range cases {
		r.on(c.tag, fault(c.stage, c.bad))
		label(t, w, c.n, c.tag)
	}
	for _, c := range cases {
		rec := w.OutcomeOf(c.n, outcomeWait)
		if rec.Outcome != outcome.Completed || rec.PR == 0 {
			t.Errorf("%s: record = %+v", c.tag, rec)
			continue
		}
		once(t, w, c.n, 1)
		calls := r.calls(c.tag, c.stage)
		if len(calls) != 2 {
			t.Errorf("%s: %d %s requests, want 2 (the fault and one retry)", c.tag, len(calls), c.stage)
		} else if gap := calls[1].Sub(calls[0]); gap < c.minGap {
			t.Errorf("%s: %s retried after %s, want at least %s", c.tag, c.stage, gap, c.minGap)
		}
	}
	if t.Failed() {
		t.Fatalf("--- bot logs ---\n%s", world.Tail(w.Bot.Logs(), 8000))
	}
	next(t, w, 205)
}

// Replies that stay unusable, one issue each: a plan cut off mid-JSON,
// an empty reply, a reply that is all prose. Each ends escalated as a
// contract failure of the Plan stage, with the failure in the record,
// after at most one repair turn and no PR. Three tasks failing for good
// pause the queue (the systemic detector); after `/warden resume` the
// next issue completes.
func TestModelGarbageEscalatesWithContext(t *testing.T) {
	t.Parallel()
	w := world.New(t, world.WithConfig(stallConfig), func(env map[string]string) { env["WARDEN_CONCURRENCY"] = "3" })
	r := newRouter(w)
	plan := world.PlanReply[strings.Index(world.PlanReply, "{"):]
	cases := []struct {
		n     int
		tag   string
		reply fakemodel.Reply
		calls int // the plan request and, for a reply that does not parse, one repair turn
	}{
		{211, "gcut", fakemodel.Reply{Text: plan[:len(plan)/2]}, 2},
		{212, "gempty", fakemodel.Reply{Empty: true}, 1},
		{213, "gprose", fakemodel.Reply{Text: "The bug is in calc.Add: it subtracts. I would change the minus to a plus and run the tests."}, 2},
	}
	for _, c := range cases {
		r.on(c.tag, func(fakemodel.Request) fakemodel.Reply { return c.reply })
		label(t, w, c.n, c.tag)
	}
	for _, c := range cases {
		rec := w.OutcomeOf(c.n, outcomeWait)
		if rec.Outcome != outcome.Escalated || rec.FailureClass != outcome.ContractFailure || rec.Stage != "Plan" ||
			rec.Fingerprint == "" || rec.Obstacle.Detail == "" || rec.PR != 0 {
			t.Errorf("%s: record = %+v", c.tag, rec)
		}
		if body := w.CommentWith(c.n, "<!-- warden:outcome"); !strings.Contains(body, "could not be used") {
			t.Errorf("%s: the outcome comment does not say why:\n%s", c.tag, body)
		}
		settled(t, w, c.n, "warden:escalated")
		once(t, w, c.n, 1)
		if got := len(r.calls(c.tag, "plan")) + len(r.calls(c.tag, "")); got != c.calls {
			t.Errorf("%s: %d model requests, want %d", c.tag, got, c.calls)
		}
	}
	if len(w.GH.Pulls(world.Repo)) != 0 {
		t.Error("a pull request was opened from an unusable plan")
	}
	w.Eventually(30*time.Second, func() bool { return len(w.GH.IssuesTitled(world.Repo, "Warden paused")) == 1 }, "three terminal failures did not pause the queue")
	label(t, w, 214, "next")
	if code := w.Comment(214, "/warden resume", "alice"); code >= 300 {
		t.Fatalf("resume answered %d", code)
	}
	if rec := w.OutcomeOf(214, outcomeWait); rec.Outcome != outcome.Completed {
		t.Fatalf("the issue after the garbage: %+v", rec)
	}
	healthy(t, w)
}

// next labels one more issue with a well-behaved model and expects it to
// complete: the faults left nothing behind.
func next(t *testing.T, w *world.World, n int) {
	t.Helper()
	label(t, w, n, "next")
	if rec := w.OutcomeOf(n, outcomeWait); rec.Outcome != outcome.Completed || rec.PR == 0 {
		t.Fatalf("the next issue: %+v\n%s", rec, world.Tail(w.Bot.Logs(), 6000))
	}
	once(t, w, n, 1)
	healthy(t, w)
}
