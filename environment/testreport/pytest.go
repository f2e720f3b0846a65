package testreport

import (
	"strings"
)

// pytestPlan adds a JUnit report in HOME to a plain `pytest …` or
// `python -m pytest …`: --junitxml only writes a file, it selects nothing.
// A re-run narrows with -k to the failing tests' names (a name matching
// elsewhere only runs more).
func pytestPlan(line string) (Plan, bool) {
	f := strings.Fields(line)
	isPytest := len(f) >= 1 && f[0] == "pytest" ||
		len(f) >= 3 && (f[0] == "python" || f[0] == "python3") && f[1] == "-m" && f[2] == "pytest"
	if !isPytest || !plain(line) {
		return Plan{}, false
	}
	for _, a := range f {
		if strings.HasPrefix(a, "--junitxml") || strings.HasPrefix(a, "--junit-xml") || a == "-k" || a == "--" {
			return Plan{}, false
		}
	}
	p := Plan{Kind: Pytest, Line: line + " --junitxml=$HOME/" + ReportName, Report: ReportName}
	p.rerun = func(ids []string) string {
		var names []string
		for _, id := range ids {
			name := id
			if i := strings.LastIndex(id, " > "); i >= 0 {
				name = id[i+3:]
			}
			if i := strings.IndexByte(name, '['); i > 0 {
				name = name[:i] // a parametrized case: -k takes the function's name
			}
			names = append(names, name)
		}
		return p.Line + " -k " + quote(strings.Join(names, " or "))
	}
	return p, true
}
