package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
)

// script answers plan with plan and every edit with edit; review approves.
func script(plan, edit string) func(fakemodel.Request) fakemodel.Reply {
	return func(r fakemodel.Request) fakemodel.Reply {
		switch r.Stage {
		case "plan":
			return text(plan)
		case "implement", "fix":
			return text(edit)
		case "review":
			return text(achieved)
		}
		return text(plan) // repair turns
	}
}

func TestMaintenanceGuardsRefuse(t *testing.T) {
	long := strings.Repeat("// line\n", 60)
	cases := []struct {
		name, plan, edit string
	}{
		{"test file edit", planReply, "calc/calc_test.go\n<<<<<<< SEARCH\n\tif got := Add(2, 3); got != 5 {\n=======\n\tif got := Add(2, 3); got != -1 {\n>>>>>>> REPLACE\n"},
		{"truncating edit", `{"decision":"implement","summary":"s","approach":"a","files":["calc/big.go"]}`, "calc/big.go\n<<<<<<< SEARCH\n" + long + "=======\n// gone\n>>>>>>> REPLACE\n"},
		{"four-file plan", `{"decision":"implement","summary":"s","approach":"a","files":["a.go","b.go","c.go","d.go"]}`, fixBlock},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, withFiles(map[string]string{"calc/big.go": "package calc\n" + long}))
			w.Model.Script(script(tc.plan, tc.edit))
			n := 20 + i
			w.Label(n, "Add returns the difference", "fix it", "warden:maintenance", "alice")
			rec := w.OutcomeOf(n, 90*time.Second)
			if rec.Outcome != outcome.Escalated || rec.FailureClass != outcome.GuardViolation {
				t.Fatalf("record = %+v", rec)
			}
			if len(w.GH.Pulls(repo)) != 0 {
				t.Fatal("a PR was opened")
			}
		})
	}
}

// The same test-file edit goes through in evolution with allow_test_changes,
// and the PR waits for approval.
func TestEvolutionMayChangeTests(t *testing.T) {
	files := withFiles(map[string]string{".github/warden.yml": "test: go test ./...\nevolution: {allow_test_changes: true}\n"})
	w := newWorld(t, files)
	edit := fixBlock + "calc/calc_test.go\n<<<<<<< SEARCH\nfunc TestAdd(t *testing.T) {\n=======\n// TestAdd checks the sum.\nfunc TestAdd(t *testing.T) {\n>>>>>>> REPLACE\n"
	w.Model.Script(script(`{"decision":"implement","summary":"s","approach":"a","files":["calc/calc.go","calc/calc_test.go"]}`, edit))
	w.Label(30, "Add returns the difference", "fix it and document the test", "warden:evolution", "alice")
	rec := w.OutcomeOf(30, 90*time.Second)
	if rec.Outcome != outcome.Completed || rec.PR == 0 {
		t.Fatalf("record = %+v\n%s", rec, w.Bot.Logs())
	}
	pr := w.GH.Pulls(repo)[0]
	st := w.GH.Statuses(repo, pr.HeadSHA)
	if len(st) == 0 || st[len(st)-1].State != "pending" || st[len(st)-1].Context != "warden/mode" {
		t.Fatalf("evolution status = %+v", st)
	}
}

// A test command that prints its environment shows no secret of Warden's.
func TestTestCommandSeesNoSecret(t *testing.T) {
	// env alone missed the bot's own environment: every /proc/*/environ is read too.
	// The command fails on the base too, so the attempt ends blocked with the
	// base run's output (issue #32); the comment quotes the command, hence
	// grep -i and a lower-case pattern.
	files := withFiles(map[string]string{".github/warden.yml": "test: env; for f in /proc/*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null | grep -i warden_; exit 1\nmax_fix_attempts: 0\n"})
	w := newWorld(t, files)
	w.Model.Script(happyScript)
	w.Label(31, "Add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(31, 90*time.Second)
	body := w.CommentWith(31, "<!-- warden:outcome")
	if rec.FailureClass != outcome.TestFailure || !strings.Contains(body, "PATH=") {
		t.Fatalf("record = %+v\n%s", rec, body)
	}
	for _, s := range []string{"WARDEN_", "sk-test-e2e-key", "ghs_", "PRIVATE KEY", secret, "GIT_CONFIG"} {
		if strings.Contains(body, s) {
			t.Errorf("%q visible to the repository's test command:\n%s", s, body)
		}
	}
}

// Attempt 2's plan prompt carries attempt 1's failure class and recommendation.
func TestRetryRemembersTheLastAttempt(t *testing.T) {
	w := newWorld(t, calcRepo())
	plan := `{"decision":"implement","summary":"s","approach":"multiply","files":["calc/calc.go"],"recommendation":"Check the sign in calc.Add first."}`
	w.Model.Script(func(r fakemodel.Request) fakemodel.Reply {
		if r.Stage == "plan" {
			return text(plan)
		}
		return redScript(r)
	})
	w.Label(40, "Add returns the difference", "fix it", "warden:maintenance", "alice")
	if rec := w.OutcomeOf(40, 120*time.Second); rec.FailureClass != outcome.TestFailure {
		t.Fatalf("first attempt = %+v", rec)
	}
	w.Eventually(30*time.Second, func() bool {
		w.GH.RemoveLabel(repo, 40, "warden:maintenance")
		return w.Label(40, "Add returns the difference", "fix it", "warden:maintenance", "alice") == http.StatusAccepted
	}, "relabel never queued")
	var second string
	w.Eventually(60*time.Second, func() bool {
		plans := 0
		for _, r := range w.Model.Requests() {
			if r.Stage == "plan" {
				if plans++; plans == 2 {
					second = r.Prompt
				}
			}
		}
		return second != ""
	}, "no second plan call")
	for _, want := range []string{"Attempt 1", "test_failure", "Check the sign in calc.Add first."} {
		if !strings.Contains(second, want) {
			t.Errorf("second plan prompt lacks %q:\n%s", want, second)
		}
	}
}
