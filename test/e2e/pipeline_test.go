package e2e

import (
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/harness"
)

// A labelled maintenance issue becomes one PR whose branch holds the fix and
// passes the repository's tests; the outcome says completed; every stage is done.
func TestHappyPathOpensOnePR(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(happyScript)
	if code := w.Label(7, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice"); code != http.StatusAccepted {
		t.Fatalf("answered %d", code)
	}
	w.Eventually(90*time.Second, func() bool { return w.CommentWith(7, "<!-- warden:outcome") != "" }, "no outcome comment")
	rec, ok := comments.ParseRecord(w.CommentWith(7, "<!-- warden:outcome"))
	if !ok || rec.Outcome != "completed" || rec.PR == 0 || rec.FailureClass != "" {
		t.Fatalf("outcome record = %+v\n%s", rec, w.Bot.Logs())
	}
	prs := w.GH.Pulls(repo)
	if len(prs) != 1 {
		t.Fatalf("want one PR, got %d", len(prs))
	}
	pr := prs[0]
	if !strings.HasPrefix(pr.Head, "warden/7-") || !strings.Contains(pr.Body, "Fixes #7") || !strings.Contains(pr.Body, `<!-- warden:pr {"issue":7,"mode":"maintenance"} -->`) {
		t.Fatalf("PR = %+v", pr)
	}
	if got := gitfixture.ReadFile(t, w.Bare, pr.Head, "calc/calc.go"); !strings.Contains(got, "return a + b") {
		t.Fatalf("branch does not hold the fix:\n%s", got)
	}
	// The commit is the App's bot user's, so GitHub links it to the App.
	author, err := exec.Command("git", "-C", w.Bare, "log", "-1", "--format=%an <%ae>", pr.Head).Output()
	if want := "warden-test[bot] <41990001+warden-test[bot]@users.noreply.github.com>"; err != nil || strings.TrimSpace(string(author)) != want {
		t.Errorf("commit author %q (%v), want %q", author, err, want)
	}
	status := w.CommentWith(7, "<!-- warden:status -->")
	for _, stage := range []string{"Plan", "Implement", "Test", "Security", "Review", "Release"} {
		if !strings.Contains(status, stage) {
			t.Errorf("status comment lacks %s:\n%s", stage, status)
		}
	}
	if strings.Contains(status, "pending") || strings.Contains(status, "failed") {
		t.Errorf("status comment not all done:\n%s", status)
	}
	if !w.HasLabel(7, "warden:pr-open") {
		t.Errorf("labels = %v", w.GH.Labels(repo, 7))
	}
	if st := w.GH.Statuses(repo, pr.HeadSHA); len(st) == 0 || st[len(st)-1].State != "success" {
		t.Errorf("warden/mode status = %+v", st)
	}
	// Status edits are coalesced and the status comment's id remembered:
	// a whole task costs GitHub a handful of calls (15 when measured; a
	// "queued" update that lands before the worker starts adds four; the
	// lifecycle's first look at the released PR, which may run by now,
	// adds seven: PR, config, suites, runs, statuses, comments, note).
	if n := len(w.GH.Calls()); n > 28 { // 27 before the transcript's check run
		t.Errorf("%d GitHub API calls for one task, want at most 28", n)
	}
	for _, c := range w.BotComments(7) {
		if strings.Contains(c, "sk-test-e2e-key") || strings.Contains(c, "ghs_") {
			t.Fatalf("a secret leaked into a comment:\n%s", c)
		}
	}
	w.assertMetrics()
	w.assertLogsCarryIDs()
}

// assertLogsCarryIDs: the handler's lines carry the delivery and request
// ids, and every pipeline line the task and delivery that queued it.
func (w *world) assertLogsCarryIDs() {
	w.T.Helper()
	stages, handled := 0, 0
	for line := range strings.SplitSeq(w.Bot.Logs(), "\n") {
		switch {
		case strings.Contains(line, `"msg":"stage finished"`):
			stages++
			if !strings.Contains(line, `"task":"run:acme/calc#7"`) || !strings.Contains(line, `"delivery":"delivery-7-`) {
				w.T.Errorf("stage log line lacks task or delivery: %s", line)
			}
		case strings.Contains(line, `"msg":"webhook handled"`):
			handled++
			if !regexp.MustCompile(`"request_id":"[^"]+"`).MatchString(line) || !strings.Contains(line, `"delivery":"delivery-7-`) {
				w.T.Errorf("handler log line lacks request or delivery id: %s", line)
			}
		}
	}
	if stages == 0 || handled == 0 {
		w.T.Errorf("found %d stage and %d handler log lines", stages, handled)
	}
}

// assertMetrics checks that a task's passage shows in /metrics under the
// names the dashboard (deploy/grafana/warden.json) queries.
func (w *world) assertMetrics() {
	w.T.Helper()
	resp, err := harness.GetOps(w.Bot.URL() + "/metrics")
	if err != nil {
		w.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`warden_webhooks_total{event="issues",result="queued"} 1`,
		`warden_tasks_total{failure_class="",outcome="completed"} 1`,
		`warden_stage_duration_seconds_bucket{result="done",stage="Plan"`,
		`warden_model_tokens_total{direction="input"}`,
		`warden_model_cost_usd_total`,
		`warden_queue_tasks{queue="default"`,
		`warden_queue_paused{queue="default"} 0`,
		`warden_supervisor_events_total{kind="started"}`,
		`warden_github_requests_total{code="201",method="POST"}`,
		`go_goroutines`,
		`process_open_fds`,
	} {
		if !strings.Contains(string(b), want) {
			w.T.Errorf("/metrics lacks %s", want)
		}
	}
}

// A fix loop that never gets the tests green ends escalated/test_failure with
// the test output in a collapsed block.
func TestFailingTestsEscalate(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(redScript)
	w.Label(8, "Add returns the difference", "calc.Add is wrong.", "warden:maintenance", "alice")
	w.Eventually(120*time.Second, func() bool { return w.CommentWith(8, "<!-- warden:outcome") != "" }, "no outcome comment")
	body := w.CommentWith(8, "<!-- warden:outcome")
	rec, _ := comments.ParseRecord(body)
	if rec.Outcome != "escalated" || rec.FailureClass != "test_failure" {
		t.Fatalf("record = %+v", rec)
	}
	if !strings.Contains(body, "<details>") || !strings.Contains(body, "want 5") {
		t.Fatalf("test output not quoted:\n%s", body)
	}
	if len(w.GH.Pulls(repo)) != 0 {
		t.Fatal("a PR was opened for failing tests")
	}
	fixes := w.Model.RequestsFor("fix")
	for _, r := range fixes {
		if !strings.Contains(r.Prompt, "want 5") {
			t.Errorf("fix prompt does not quote the test output")
		}
	}
	if len(fixes) != 2 {
		t.Errorf("fix calls = %d, want max_fix_attempts = 2", len(fixes))
	}
}

// Running the same issue twice yields one PR, updated in place.
func TestSecondRunReusesThePR(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(happyScript)
	w.Label(9, "Add returns the difference", "fix Add", "warden:maintenance", "alice")
	w.Eventually(90*time.Second, func() bool { return w.CommentWith(9, "<!-- warden:outcome") != "" }, "first run")
	w.Model.Script(retryScript) // the second run continues the PR's head (#27)
	// The first task is done once its delivery would queue again; a maintainer
	// relabelling earlier is told it is already queued.
	w.Eventually(30*time.Second, func() bool {
		w.GH.RemoveLabel(repo, 9, "warden:maintenance")
		return w.Label(9, "Add returns the difference", "fix Add", "warden:maintenance", "alice") == http.StatusAccepted
	}, "relabel never queued")
	w.Eventually(90*time.Second, func() bool {
		return len(w.Model.RequestsFor("review")) >= 2 && len(w.GH.Pulls(repo)) >= 1 && strings.Contains(w.CommentWith(9, "<!-- warden:status -->"), "Attempt 2")
	}, "second run")
	w.Eventually(30*time.Second, func() bool { return w.HasLabel(9, "warden:pr-open") }, "second run finished")
	if n := len(w.GH.Pulls(repo)); n != 1 {
		t.Fatalf("PRs = %d, want 1", n)
	}
}
