package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/comments/dashboard"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/harness"
)

// dashboardIssue is the one open dashboard (the test fails on two).
func (w *world) dashboardIssue() (fakegithub.Issue, bool) {
	var open []fakegithub.Issue
	for _, is := range w.GH.IssuesTitled(repo, dashboard.Title) {
		if is.State == "open" {
			open = append(open, is)
		}
	}
	if len(open) > 1 {
		w.T.Fatalf("%d open dashboards: %+v", len(open), open)
	}
	if len(open) == 0 {
		return fakegithub.Issue{}, false
	}
	return open[0], true
}

func (w *world) dashboardHas(parts ...string) bool {
	is, ok := w.dashboardIssue()
	for _, p := range parts {
		ok = ok && strings.Contains(is.Body, p)
	}
	return ok
}

// editDashboard is GitHub's issues.edited delivery for sender's edit of
// the dashboard to body (the fake's copy changes first, as on GitHub).
func (w *world) editDashboard(sender, body string) int {
	is, _ := w.dashboardIssue()
	w.GH.SetBody(repo, is.Number, body)
	return w.Deliver("issues", "issues.edited.json", func(m map[string]any) {
		p := m["issue"].(map[string]any)
		p["number"], p["title"], p["body"] = is.Number, is.Title, body
		p["user"].(map[string]any)["login"] = fakegithub.BotLogin
		m["sender"].(map[string]any)["login"] = sender
		m["changes"] = map[string]any{"body": map[string]any{"from": is.Body}}
	})
}

func (w *world) restart(flush bool) {
	w.Bot.Kill()
	if flush {
		rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(w.T), DB: w.DB})
		rdb.FlushDB(context.Background())
		rdb.Close()
	}
	w.Bot = harness.StartBinary(w.T, w.Bin, w.Env)
}

func (w *world) dashboardEdits() int {
	is, ok := w.dashboardIssue()
	if !ok {
		return 0
	}
	return w.GH.CountCalls(http.MethodPatch, fmt.Sprintf("/repos/%s/issues/%d", repo, is.Number))
}

// #40 item 5: `dashboard: true` keeps one issue listing a running and an
// escalated issue with why; a writer's tick retries the escalated one, a
// non-writer's is undone and changes nothing; 50 events make a few edits;
// two restarts (one with Redis flushed) leave one dashboard.
func TestDashboard(t *testing.T) {
	w := newWorld(t, withConfig("test: go test ./...\ndashboard: true\n"))
	fourFiles := `{"decision":"implement","summary":"s","approach":"a","files":["a.go","b.go","c.go","d.go"]}`
	w.Model.Script(func(r fakemodel.Request) fakemodel.Reply {
		switch {
		case strings.Contains(r.Prompt, "Hold this one"):
			return fakemodel.Reply{Hang: 10 * time.Minute}
		case strings.Contains(r.Prompt, "Too wide"):
			return script(fourFiles, fixBlock)(r)
		}
		return happyScript(r)
	})
	w.Label(60, "Too wide", "touches four files", "warden:maintenance", "alice")
	if rec := w.OutcomeOf(60, 90*time.Second); rec.Outcome != outcome.Escalated {
		t.Fatalf("issue 60: %+v", rec)
	}
	w.Label(61, "Hold this one", "the model never answers", "warden:maintenance", "alice")
	w.Eventually(60*time.Second, func() bool {
		return w.dashboardHas("### Running (1)\n\n- #61 — working (maintenance, labelled)",
			dashboard.RetryLine(60)+" — `guard_violation`")
	}, "the dashboard does not list #61 running and #60 escalated with why")
	is, _ := w.dashboardIssue()
	t.Logf("dashboard #%d:\n%s", is.Number, is.Body)

	// A non-writer's tick: undone, and #60 is not retried.
	plans := func() int {
		n := 0
		for _, r := range w.Model.RequestsFor("plan") {
			if strings.Contains(r.Prompt, "Too wide") {
				n++
			}
		}
		return n
	}
	before := plans()
	ticked := strings.Replace(is.Body, dashboard.RetryLine(60), strings.Replace(dashboard.RetryLine(60), "[ ]", "[x]", 1), 1)
	if code := w.editDashboard("trudy", ticked); code >= 300 {
		t.Fatalf("edit answered %d", code)
	}
	w.Eventually(20*time.Second, func() bool { return w.dashboardHas(dashboard.RetryLine(60)) }, "the non-writer's tick was not undone")
	time.Sleep(3 * time.Second)
	if n := plans(); n != before || w.HasLabel(60, "warden:queued") {
		t.Fatalf("a non-writer's tick retried #60: %d plan requests (was %d)", n, before)
	}

	// A writer's tick is /warden retry on #60.
	is, _ = w.dashboardIssue()
	ticked = strings.Replace(is.Body, dashboard.RetryLine(60), strings.Replace(dashboard.RetryLine(60), "[ ]", "[x]", 1), 1)
	if code := w.editDashboard("alice", ticked); code >= 300 {
		t.Fatalf("edit answered %d", code)
	}
	w.Eventually(90*time.Second, func() bool { return plans() > before }, "the writer's tick did not retry #60")

	// 50 events: a few edits, one issue.
	edits := w.dashboardEdits()
	for i := range 50 {
		w.Comment(60, "/warden status", "alice")
		if i%10 == 0 {
			time.Sleep(time.Second)
		}
	}
	time.Sleep(8 * time.Second)
	t.Logf("50 events made %d dashboard edits", w.dashboardEdits()-edits)
	if n := w.dashboardEdits() - edits; n > 12 {
		t.Errorf("50 events made %d dashboard edits, want a few (debounced)", n)
	}

	// Two restarts, the second with Redis flushed: still one dashboard.
	w.restart(false)
	w.Comment(60, "/warden status", "alice")
	w.restart(true)
	w.Label(70, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	if rec := w.OutcomeOf(70, 120*time.Second); rec.Outcome != outcome.Completed {
		t.Fatalf("issue 70: %+v", rec)
	}
	w.Eventually(30*time.Second, func() bool { return w.dashboardHas("for #70 — ") }, "the dashboard was not refreshed after the Redis loss")
	if all := w.GH.IssuesTitled(repo, dashboard.Title); len(all) != 1 {
		t.Fatalf("%d dashboard issues after two restarts, want 1", len(all))
	}
	list, create := 0, 0
	for _, c := range w.GH.Calls() {
		switch {
		case c.Path != "/repos/"+repo+"/issues":
		case c.Method == http.MethodGet:
			list++
		case c.Method == http.MethodPost:
			create++
		}
	}
	t.Logf("dashboard calls in the whole test: %d listings of Warden's issues, %d create, %d edits", list, create, w.dashboardEdits())
	if create != 1 {
		t.Errorf("%d dashboards created, want 1", create)
	}
}
