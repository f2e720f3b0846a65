package pipeline

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/environment"
	"github.com/warden-bot/warden/environment/toolchain"
	"github.com/warden-bot/warden/modes"
)

// envFor is an environment whose test command is test.
func envFor(test string) *environment.Env {
	e := &environment.Env{Log: slog.New(slog.DiscardHandler)}
	_, _ = e.Resolve(nil, modes.Config{}, toolchain.Plan{Test: test})
	return e
}

func TestIssueAboutTellsTheIssuesTestsFromOthers(t *testing.T) {
	a := &attempt{t: Task{Title: "Add returns the difference", Body: "see TestParseDate"},
		plan: agent.Plan{Files: []string{"calc/calc.go"}},
		env:  envFor("go test ./...")}
	for id, want := range map[string]bool{
		"example.com/m/calc TestMul":          true, // in a package the plan changes
		"example.com/m/dates TestParseDate":   true, // named in the issue
		"example.com/m/clock TestCertificate": false,
		"suite > certificate":                 false,
		"calc add":                            false, // a Go id: "add" is the test
	} {
		if got := a.issueAbout(id); got != want {
			t.Errorf("issueAbout(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestIssueAboutReadsJUnitNamesWhole(t *testing.T) {
	a := &attempt{t: Task{Title: "add returns the difference"}, plan: agent.Plan{Files: []string{"calc.js"}},
		env: envFor("node --test")}
	if !a.issueAbout("calc add") || a.issueAbout("certificate") || !a.issueAbout("suite > calc sums") {
		t.Fatal("a node test named after the changed unit is not the issue's, or an unrelated one is")
	}
}

func TestTestsNoteNamesAFlakyTestOncePerRepository(t *testing.T) {
	a := &attempt{t: Task{DefaultBranch: "main"}, tests: &verdict{hasBase: true,
		pre: []string{"p TestA", "p TestB"}, flaky: []string{"p TestC", "p TestD"}}}
	a.knownFlaky = map[string]bool{"p TestD": true}
	note := a.testsNote()
	for _, want := range []string{
		"2 tests already fail on `main`; not caused by this change: `p TestA`, `p TestB`.",
		"1 test failed and then passed on a re-run (flaky); not handed to the model: `p TestC`.",
		"1 test known to be flaky here failed and passed on a re-run.",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "TestD") {
		t.Errorf("a known flaky test is named again:\n%s", note)
	}
}
