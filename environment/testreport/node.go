package testreport

import (
	"slices"
	"strings"
)

// ReportName is the file a reporter writes in the command's private HOME,
// outside the worktree; the caller reads it back after the run.
const ReportName = ".warden-junit.xml"

// nodePlan gives a plain `node --test …` a second reporter, JUnit to a file
// in HOME, beside the one it prints (spec): the same files and tests run.
func nodePlan(line string) (Plan, bool) {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "node" || !slices.Contains(f, "--test") || !plain(line) {
		return Plan{}, false
	}
	for _, a := range f {
		if strings.HasPrefix(a, "--test-reporter") || strings.HasPrefix(a, "--test-name-pattern") || a == "--" {
			return Plan{}, false
		}
	}
	report := "$HOME/" + ReportName // expanded by the sandbox's shell
	with := func(extra string) string {
		return "node " + extra + "--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=" + report + " " + strings.Join(f[1:], " ")
	}
	p := Plan{Kind: NodeJU, Line: with(""), Report: ReportName}
	p.rerun = func(ids []string) string {
		var names []string
		for _, id := range ids {
			// A parent must match for its subtests to run at all.
			names = append(names, strings.Split(id, " > ")...)
		}
		return with("--test-name-pattern=" + quote(alternation(names)) + " ")
	}
	return p, true
}
