package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
	tw "github.com/warden-bot/warden/test/world"
)

// Issue #32: failures already on the base, flaky tests and the change's own
// failures, told apart test by test, through `bot serve`, for Go and for
// node's test runner.

// expired fails on every commit: a date that passed, unrelated to calc.
var expired = map[string]string{
	"clock/clock.go":      "package clock\n\n// Year is the certificate's last valid year.\nfunc Year() int { return 2020 }\n",
	"clock/clock_test.go": "package clock\n\nimport \"testing\"\n\nfunc TestCertificate(t *testing.T) {\n\tif y := Year(); y < 2025 {\n\t\tt.Fatalf(\"certificate ran out in %d\", y*1)\n\t}\n}\n",
}

// flakyGo fails once after the fix (it leaves an ignored marker behind in
// the worktree) and passes when run again; on the base it passes.
var flakyGo = map[string]string{
	".gitignore": "*.marker\n",
	"flaky/flaky_test.go": `package flaky

import (
	"os"
	"strings"
	"testing"
)

func TestSometimes(t *testing.T) {
	src, _ := os.ReadFile("../calc/calc.go")
	if !strings.Contains(string(src), "a + b") {
		return
	}
	if _, err := os.Stat("once.marker"); err == nil {
		return
	}
	_ = os.WriteFile("once.marker", nil, 0o644)
	t.Fatal("lost a race " + "this time")
}
`,
}

// mulFiles adds a Mul whose test passes on the base.
var mulFiles = map[string]string{
	"calc/mul.go":      "package calc\n\n// Mul returns the product of a and b.\nfunc Mul(a, b int) int {\n\treturn a * b\n}\n",
	"calc/mul_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif got := Mul(2, 3); got != 6 {\n\t\tt.Fatalf(\"Mul(2, 3) = %d, want 6\", got)\n\t}\n}\n",
}

func merged(parts ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, p := range parts {
		for k, v := range p {
			out[k] = v
		}
	}
	return tw.WithFiles(out)
}

// noRequestMentions fails when any model request quoted s.
func noRequestMentions(t *testing.T, w *world, s ...string) {
	t.Helper()
	for _, r := range w.Model.Requests() {
		for _, m := range r.Messages {
			for _, x := range s {
				if strings.Contains(m.Content, x) {
					t.Errorf("a %q request quoted %q:\n%s", r.Stage, x, tail(m.Content, 2000))
				}
			}
		}
	}
}

func TestBaselineGoPreExistingFailureIsNotTheModels(t *testing.T) {
	w := newWorld(t, merged(expired))
	w.Model.Script(happyScript)
	w.Label(41, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(41, 120*time.Second)
	if rec.Outcome != outcome.Completed || rec.PR == 0 || rec.Tests == nil {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	if want := []string{"example.com/calc/clock TestCertificate"}; !slices.Equal(rec.Tests.PreExisting, want) || len(rec.Tests.Caused) != 0 || len(rec.Tests.Flaky) != 0 || len(rec.Tests.FixedUnrelated) != 0 || rec.Tests.Base == "" {
		t.Fatalf("tests = %+v", rec.Tests)
	}
	if body := w.Pull().Body; !strings.Contains(body, "1 test already fails on `main`; not caused by this change: `example.com/calc/clock TestCertificate`") {
		t.Errorf("PR body does not list the pre-existing failure:\n%s", body)
	}
	if st := w.CommentWith(41, "<!-- warden:status -->"); !strings.Contains(st, "already fails on `main`") {
		t.Errorf("status comment does not list it:\n%s", st)
	}
	if n := len(w.Model.RequestsFor("fix")); n != 0 {
		t.Errorf("%d fix requests for a failure already on main", n)
	}
	noRequestMentions(t, w, "certificate ran out in 2020", "--- FAIL")
}

func TestBaselineGoFlakyTestIsNotHandedToTheModel(t *testing.T) {
	w := newWorld(t, merged(flakyGo))
	w.Model.Script(happyScript)
	w.Label(42, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(42, 120*time.Second)
	if rec.Outcome != outcome.Completed || rec.Tests == nil {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	if want := []string{"example.com/calc/flaky TestSometimes"}; !slices.Equal(rec.Tests.Flaky, want) || len(rec.Tests.Caused) != 0 {
		t.Fatalf("tests = %+v", rec.Tests)
	}
	if n := len(w.Model.RequestsFor("fix")); n != 0 {
		t.Errorf("%d fix requests for a flaky test", n)
	}
	noRequestMentions(t, w, "lost a race this time")
	if body := w.Pull().Body; !strings.Contains(body, "passed on a re-run (flaky)") {
		t.Errorf("PR body does not name the flaky test:\n%s", body)
	}
}

// breakMul fixes Add but breaks Mul; the fix restores Mul.
func breakMul(req fakemodel.Request) fakemodel.Reply {
	switch req.Stage {
	case "plan":
		return text(strings.Replace(planReply, `"files":["calc/calc.go"]`, `"files":["calc/calc.go","calc/mul.go"]`, 1))
	case "implement":
		return text(fixBlock + "\ncalc/mul.go\n<<<<<<< SEARCH\n\treturn a * b\n=======\n\treturn a + b\n>>>>>>> REPLACE\n")
	case "fix":
		return text("calc/mul.go\n<<<<<<< SEARCH\n\treturn a + b\n=======\n\treturn a * b\n>>>>>>> REPLACE\n")
	case "review":
		return text(achieved)
	}
	return text("?")
}

func TestBaselineGoCausedFailureGoesToTheFixLoop(t *testing.T) {
	w := newWorld(t, merged(expired, mulFiles))
	w.Model.Script(breakMul)
	w.Label(43, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(43, 150*time.Second)
	if rec.Outcome != outcome.Completed || rec.Tests == nil {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	fixes := w.Model.RequestsFor("fix")
	if len(fixes) != 1 || !strings.Contains(fixes[0].Prompt, "Mul(2, 3) = 5, want 6") {
		t.Fatalf("fix requests = %d; want one quoting TestMul's failure", len(fixes))
	}
	if strings.Contains(fixes[0].Prompt, "certificate ran out") {
		t.Errorf("the fix prompt quotes the failure already on main:\n%s", fixes[0].Prompt)
	}
	if !slices.Equal(rec.Tests.PreExisting, []string{"example.com/calc/clock TestCertificate"}) || len(rec.Tests.Caused) != 0 {
		t.Errorf("tests = %+v", rec.Tests)
	}
}

// A command judged by its exit status alone (a shell list) that already
// fails on the base ends the attempt blocked before any model call, naming
// the command, the commit and what the maintainer can do.
func TestBaselineRedBaseBlocksAnExitStatusCommand(t *testing.T) {
	w := newWorld(t, tw.WithConfig("test: go vet ./... && go test ./...\nmax_fix_attempts: 2\n"))
	w.Model.Script(happyScript)
	w.Label(44, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(44, 120*time.Second)
	if rec.Outcome != outcome.Blocked || rec.Obstacle.Kind != "red_base" || rec.Tests == nil || rec.Tests.Base == "" {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	for _, want := range []string{"`go vet ./... && go test ./...`", "already fails on `main` at " + rec.Tests.Base[:12]} {
		if !strings.Contains(rec.Summary, want) {
			t.Errorf("summary lacks %q: %s", want, rec.Summary)
		}
	}
	if !strings.Contains(rec.Recommendation, "set `test:`") {
		t.Errorf("recommendation = %q", rec.Recommendation)
	}
	if n := len(w.Model.Requests()); n != 0 {
		t.Errorf("%d model requests before a red base blocked the attempt", n)
	}
	// The label follows the outcome comment.
	w.Eventually(30*time.Second, func() bool { return w.HasLabel(44, "warden:blocked") }, "no blocked label")
}

// Hollow success stays caught: a change that also makes a failure already
// on main pass, in code the issue is not about, is reported, not counted.
func TestBaselineGoUnrelatedFixIsReported(t *testing.T) {
	w := newWorld(t, merged(expired))
	w.Model.Script(func(req fakemodel.Request) fakemodel.Reply {
		if req.Stage == "implement" {
			return text(fixBlock + "\nclock/clock.go\n<<<<<<< SEARCH\nfunc Year() int { return 2020 }\n=======\nfunc Year() int { return 2030 }\n>>>>>>> REPLACE\n")
		}
		return happyScript(req)
	})
	w.Label(45, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(45, 120*time.Second)
	if rec.Outcome != outcome.Completed || rec.Tests == nil {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
	if want := []string{"example.com/calc/clock TestCertificate"}; !slices.Equal(rec.Tests.FixedUnrelated, want) || len(rec.Tests.PreExisting) != 0 {
		t.Fatalf("tests = %+v", rec.Tests)
	}
	if body := w.Pull().Body; !strings.Contains(body, "though the issue is not about it") || !strings.Contains(body, "not counted as the fix") {
		t.Errorf("PR body does not report the unrelated fix:\n%s", body)
	}
}
