// Package testreport turns a repository's test command into one whose
// results can be read test by test, and reads them: Go's `go test -json`,
// node's test runner (JUnit), JUnit XML files a runner writes anyway
// (Maven Surefire, Gradle), and cargo's plain output. Anything else is
// judged by its exit status alone. It imports nothing of Warden's.
package testreport

import (
	"regexp"
	"slices"
	"strings"
)

// Kind is how a command's results are read.
type Kind string

// The kinds of reading.
const (
	Status Kind = "status" // exit status only
	GoJSON Kind = "go"     // go test -json on stdout
	NodeJU Kind = "node"   // node --test with a JUnit reporter to a file
	Pytest Kind = "pytest" // pytest with --junitxml to a file
	Jest   Kind = "jest"   // jest --json to a file
	Files  Kind = "junit"  // JUnit XML files the runner writes by itself
	Cargo  Kind = "cargo"  // cargo test's plain lines
)

// Plan is a test command as Warden runs it, and how to read its results.
type Plan struct {
	Kind Kind
	// Orig is the repository's command; Line the one run: Orig with a
	// reporter flag added, never a change to what it selects.
	Orig, Line string
	// Report is the file a reporter writes in the command's HOME, when
	// it writes one (ReportName); the caller hands its content to Parse.
	Report string
	// rerun is the command narrowed to the named tests; "" when the runner
	// cannot select them (a package failed as a whole).
	rerun func(ids []string) string
}

// Result is a run read test by test.
type Result struct {
	// Structured is false when only the exit status was read; Failed then
	// holds the command itself as the one "test".
	Structured bool
	Failed     []string // ids of failing tests, sorted
	Ran        int      // tests that ran (passed, failed or skipped); -1 unknown
	// Output is what a human (or the model) reads: the runner's text, not
	// its JSON; Failures the text of the failing tests only.
	Output   string
	Failures map[string]string
}

// Green reports whether nothing failed.
func (r Result) Green() bool { return len(r.Failed) == 0 }

// CommandID names the whole command as a "test" when no test-level result
// exists (Structured is false, or the command failed outside any test).
func CommandID(line string) string { return "command: " + line }

// Instrument picks how to read line's results. An unknown or unsure shape
// keeps the command exactly as written and reads its exit status.
func Instrument(line string) Plan {
	line = strings.TrimSpace(line)
	for _, try := range []func(string) (Plan, bool){goPlan, nodePlan, pytestPlan, jsPlan, cargoPlan, filesPlan} {
		if p, ok := try(line); ok {
			p.Orig = line
			return p
		}
	}
	return Plan{Kind: Status, Orig: line, Line: line}
}

// Rerun is the command that re-runs only the named tests, when the runner
// can select them; ok is false when only the whole command can run again.
func (p Plan) Rerun(ids []string) (string, bool) {
	if p.rerun == nil || len(ids) == 0 {
		return p.Line, false
	}
	for _, id := range ids {
		if strings.HasPrefix(id, "command: ") {
			return p.Line, false
		}
	}
	if line := p.rerun(ids); line != "" {
		return line, true
	}
	return p.Line, false
}

// quote is s as one single-quoted shell word.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// alternation is a regular expression matching exactly the given names.
func alternation(names []string) string {
	slices.Sort(names)
	names = slices.Compact(names)
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(q, "|") + ")$"
}

// plain reports whether line is one simple command: no shell operator,
// substitution, redirection or quoting whose meaning Warden would have to
// understand before adding a flag to it.
func plain(line string) bool {
	return line != "" && !strings.ContainsAny(line, ";&|<>$`\\\"'(){}\n*?~#")
}
