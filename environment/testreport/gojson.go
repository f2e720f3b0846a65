package testreport

import (
	"bufio"
	"encoding/json"
	"slices"
	"strings"
)

// goPlan adds -json to a plain `go test …`: the same packages and tests,
// reported as events. A command that builds without running (-c, -o,
// -list), passes flags to the test binary (-args) or is not plain stays as it is.
func goPlan(line string) (Plan, bool) {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "go" || f[1] != "test" || !plain(line) {
		return Plan{}, false
	}
	for _, a := range f[2:] {
		if a == "-args" || a == "-c" || a == "-o" || strings.HasPrefix(a, "-o=") || strings.HasPrefix(a, "-list") || strings.HasPrefix(a, "-json=") {
			return Plan{}, false
		}
	}
	run := line
	if !slices.Contains(f[2:], "-json") {
		run = "go test -json " + strings.Join(f[2:], " ")
	}
	p := Plan{Kind: GoJSON, Line: strings.TrimSpace(run)}
	p.rerun = func(ids []string) string {
		var names []string
		for _, id := range ids {
			_, name, ok := strings.Cut(id, " ")
			if !ok {
				return "" // the package failed outside any test
			}
			names = append(names, name)
		}
		// Flags may follow the packages; a later -run replaces an earlier
		// one; -count=1 because a re-run must run, not read the test cache.
		return p.Line + " -count=1 -run " + quote(alternation(names))
	}
	return p, true
}

type goEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// parseGo reads `go test -json` output: test ids are "<package> <Test>",
// top-level tests only (a failing subtest fails its parent); a package that
// failed with no failing test (a build error, a panic in TestMain) is failed
// under its own path.
func parseGo(out string) Result {
	var text strings.Builder
	perTest := map[string]*strings.Builder{}
	perPkg := map[string]*strings.Builder{}
	state := map[string]string{}
	pkgFailed := map[string]bool{}
	var build strings.Builder
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e goEvent
		line := sc.Text()
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil {
			text.WriteString(line + "\n") // go vet, build errors on stderr
			continue
		}
		text.WriteString(e.Output)
		if e.Action == "build-output" { // go1.24+: compile errors as events
			build.WriteString(e.Output)
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/")
		if e.Test == "" {
			appendTo(perPkg, e.Package, e.Output)
			if e.Action == "fail" {
				pkgFailed[e.Package] = true
			}
			continue
		}
		id := e.Package + " " + top
		appendTo(perTest, id, e.Output)
		if e.Test == top && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			state[id] = e.Action
		}
	}
	r := Result{Structured: true, Output: text.String(), Failures: map[string]string{}, Ran: len(state)}
	withFailure := map[string]bool{}
	for id, st := range state {
		if st == "fail" {
			r.Failed = append(r.Failed, id)
			r.Failures[id] = perTest[id].String()
			pkg, _, _ := strings.Cut(id, " ")
			withFailure[pkg] = true
		}
	}
	for pkg := range pkgFailed {
		if !withFailure[pkg] {
			r.Failed = append(r.Failed, pkg)
			r.Failures[pkg] = build.String() + builderText(perPkg[pkg])
		}
	}
	slices.Sort(r.Failed)
	return r
}

func appendTo(m map[string]*strings.Builder, k, s string) {
	b := m[k]
	if b == nil {
		b = &strings.Builder{}
		m[k] = b
	}
	b.WriteString(s)
}

func builderText(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	return b.String()
}
