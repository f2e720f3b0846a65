package testreport

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Parse reads one run of p: its combined output, exit status (timedOut
// counts as a failure), the directory it ran in and the report it wrote
// (p.Report's content, nil when none). A run whose results cannot be read
// falls back to its exit status: a failed command with no failing test
// named is failed as a whole under CommandID.
func (p Plan) Parse(output string, exitCode int, timedOut bool, dir string, report []byte) Result {
	r := Result{Structured: true, Output: output, Failures: map[string]string{}, Ran: -1}
	ok := true
	switch p.Kind {
	case GoJSON:
		r = parseGo(output)
	case NodeJU, Pytest:
		r.Ran = 0
		ok = report != nil && parseJUnit(report, &r) == nil
	case Jest:
		r.Ran = 0
		ok = report != nil && parseJest(report, &r) == nil
	case Files:
		files, _ := reportFiles(dir)
		ok = len(files) > 0 && p.readFiles(files, &r)
	case Cargo:
		r = parseCargo(output)
	default:
		ok = false
	}
	failed := exitCode != 0 || timedOut
	if !ok {
		r = Result{Output: output, Failures: map[string]string{}, Ran: -1}
	}
	if failed && len(r.Failed) == 0 {
		id := CommandID(p.Orig)
		r.Failed, r.Failures[id] = []string{id}, output
	}
	slices.Sort(r.Failed)
	return r
}

func (p Plan) readFiles(files []string, r *Result) bool {
	r.Ran = 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || parseJUnit(data, r) != nil {
			return false
		}
	}
	return true
}

// filesPlan reads the JUnit files Maven and Gradle write by themselves: the
// command is not changed at all. Old reports are removed before each run
// (ClearReports), so a file read afterwards is this run's.
func filesPlan(line string) (Plan, bool) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return Plan{}, false
	}
	switch filepath.Base(f[0]) {
	case "mvn", "mvnw", "gradle", "gradlew":
		return Plan{Kind: Files, Line: line}, true
	}
	return Plan{}, false
}

var reportGlobs = []string{
	"target/surefire-reports/TEST-*.xml", "*/target/surefire-reports/TEST-*.xml",
	"build/test-results/*/TEST-*.xml", "*/build/test-results/*/TEST-*.xml",
}

func reportFiles(dir string) ([]string, error) {
	var out []string
	for _, g := range reportGlobs {
		m, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	return out, nil
}

// ClearReports removes the reports an earlier run of a Files plan left in
// dir (build output, ignored by git), so that the next Parse reads only its own.
func (p Plan) ClearReports(dir string) {
	if p.Kind != Files {
		return
	}
	files, _ := reportFiles(dir)
	for _, f := range files {
		_ = os.Remove(f)
	}
}

// cargoPlan reads `cargo test`'s own lines; a re-run names the tests
// exactly after `--`, which only narrows what runs.
func cargoPlan(line string) (Plan, bool) {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "cargo" || f[1] != "test" || !plain(line) {
		return Plan{}, false
	}
	p := Plan{Kind: Cargo, Line: line}
	if !slices.Contains(f, "--") {
		p.rerun = func(ids []string) string {
			q := make([]string, len(ids))
			for i, id := range ids {
				q[i] = quote(id)
			}
			return line + " -- --exact " + strings.Join(q, " ")
		}
	}
	return p, true
}

var (
	cargoTestRE = regexp.MustCompile(`(?m)^test (\S+) \.\.\. (ok|FAILED|ignored)`)
	cargoFailRE = regexp.MustCompile(`(?ms)^---- (\S+) stdout ----\n(.*?)(?:\n\n|\z)`)
)

func parseCargo(out string) Result {
	r := Result{Structured: true, Output: out, Failures: map[string]string{}}
	for _, m := range cargoTestRE.FindAllStringSubmatch(out, -1) {
		r.Ran++
		if m[2] == "FAILED" {
			r.Failed = append(r.Failed, m[1])
			r.Failures[m[1]] = m[0]
		}
	}
	for _, m := range cargoFailRE.FindAllStringSubmatch(out, -1) {
		if _, ok := r.Failures[m[1]]; ok {
			r.Failures[m[1]] += "\n" + m[2]
		}
	}
	return r
}
