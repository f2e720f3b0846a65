package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/harness"
)

// A pushing attempt leaves its transcript in the `Warden` check run on the
// head it pushed (CONTRACT §13 "Seeing a run"): the plan, the diff, the
// test command's result and the spend, and nothing secret — here the
// setup command prints a value the operator configured as a secret. The outcome
// comment links it; the operator page keeps it too.
func TestTranscriptCheckRunOnPushedHead(t *testing.T) {
	w := newWorld(t, withFiles(map[string]string{
		".github/warden.yml": "setup: cat leak.txt\ntest: go test ./...\n",
		"leak.txt":           "webhook secret " + secret + "\n",
	}))
	w.Model.Script(happyScript)
	w.Label(7, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(7, 90*time.Second)
	if rec.Outcome != "completed" {
		t.Fatalf("outcome %+v\n%s", rec, w.Bot.Logs())
	}
	pr := w.GH.Pulls(repo)[0]
	runs := w.GH.CreatedCheckRuns(repo, pr.HeadSHA)
	if len(runs) != 1 || runs[0].Name != "Warden" || runs[0].Status != "completed" || runs[0].Conclusion != "success" {
		t.Fatalf("check runs on the pushed head: %+v", runs)
	}
	run := runs[0]
	if !strings.Contains(run.Summary, "completed") {
		t.Errorf("summary %q does not say the outcome", run.Summary)
	}
	for _, want := range []string{
		"`plan` plan: implement", "Make Add return the sum.", // the plan
		"```diff", "+\treturn a + b", // the edit as a diff
		"`command` setup `cat leak.txt` exited 0", "`command` test `go test ./...` exited 0, ", "tests ran, 0 failed", // the test result
		"`guard` guards: the change within the maintenance mode's limits",
		"`model` model: plan", "`spend` spend: $", // each turn in brief, the spend
	} {
		if !strings.Contains(run.Text, want) {
			t.Errorf("transcript lacks %q:\n%s", want, run.Text)
		}
	}
	if strings.Contains(run.Text, secret) || !strings.Contains(run.Text, "webhook secret [REDACTED]") {
		t.Errorf("the planted secret is not redacted:\n%s", run.Text)
	}
	outcomeComment := w.CommentWith(7, "<!-- warden:outcome")
	if !strings.Contains(outcomeComment, "**Transcript:** the `Warden` check run on the pushed head, "+w.GH.URL()) {
		t.Errorf("the outcome comment does not link the check run:\n%s", outcomeComment)
	}
	// The operator page keeps every attempt's transcript, behind its password.
	page := w.Bot.URL() + "/ui/transcript/" + repo + "/7/1"
	if code, _ := get(t, page, ""); code != http.StatusUnauthorized {
		t.Errorf("the transcript page answered %d without the password", code)
	}
	code, body := get(t, page, harness.OpsPassword)
	if code != http.StatusOK || !strings.Contains(body, "Make Add return the sum.") || strings.Contains(body, secret) {
		t.Errorf("operator page: %d\n%s", code, body)
	}
}

// An attempt that pushes nothing keeps its transcript on the operator page,
// and the outcome comment says where.
func TestTranscriptOfARunThatPushesNothing(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(redScript)
	w.Label(8, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(8, 120*time.Second)
	if rec.PR != 0 {
		t.Fatalf("a red run opened PR #%d", rec.PR)
	}
	outcomeComment := w.CommentWith(8, "<!-- warden:outcome")
	if !strings.Contains(outcomeComment, "**Transcript:** on Warden's operator page, `/ui/transcript/"+repo+"/8/1`") {
		t.Fatalf("the outcome comment does not say where the transcript is:\n%s", outcomeComment)
	}
	code, body := get(t, w.Bot.URL()+"/ui/transcript/"+repo+"/8/1", harness.OpsPassword)
	if code != http.StatusOK || !strings.Contains(body, "exited 1, ") || !strings.Contains(body, "spend: $") {
		t.Errorf("operator page: %d\n%s", code, body)
	}
}

func get(t *testing.T, url, password string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if password != "" {
		req.SetBasicAuth("operator", password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
