package testreport

import (
	"encoding/json"
	"strings"
)

// JSONName is the file Jest writes its JSON results to, in the command's HOME.
const JSONName = ".warden-jest.json"

// jsPlan gives a plain Jest or Vitest run a report file in HOME beside what
// it prints: Jest --json --outputFile (the console output stays), Vitest
// its JUnit reporter beside the default one. Neither flag selects tests; a
// re-run narrows with -t to the failing tests' names.
func jsPlan(line string) (Plan, bool) {
	f := strings.Fields(line)
	if len(f) > 0 && f[0] == "npx" {
		f = f[1:]
	}
	if len(f) == 0 || !plain(line) {
		return Plan{}, false
	}
	for _, a := range f {
		if a == "--json" || a == "-t" || a == "--" || strings.HasPrefix(a, "--outputFile") || strings.HasPrefix(a, "--reporter") || strings.HasPrefix(a, "--testNamePattern") {
			return Plan{}, false
		}
	}
	var p Plan
	switch {
	case f[0] == "jest":
		p = Plan{Kind: Jest, Line: line + " --json --outputFile=$HOME/" + JSONName, Report: JSONName}
	case f[0] == "vitest" && len(f) > 1 && f[1] == "run":
		p = Plan{Kind: NodeJU, Line: line + " --reporter=default --reporter=junit --outputFile.junit=$HOME/" + ReportName, Report: ReportName}
	default:
		return Plan{}, false
	}
	p.rerun = func(ids []string) string {
		var names []string
		for _, id := range ids {
			if i := strings.LastIndex(id, " > "); i >= 0 {
				id = id[i+3:]
			}
			names = append(names, id)
		}
		re := alternation(names) // ^(a|b)$
		return p.Line + " -t " + quote(re[1:len(re)-1])
	}
	return p, true
}

// jestJSON is the part of Jest's --json output Warden reads.
type jestJSON struct {
	TestResults []struct {
		Name             string `json:"name"`
		Message          string `json:"message"`
		AssertionResults []struct {
			FullName        string   `json:"fullName"`
			Title           string   `json:"title"`
			Status          string   `json:"status"`
			FailureMessages []string `json:"failureMessages"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

// parseJest reads Jest's JSON into r: a test's id is its full name; a file
// that failed to run with no test failing is failed under its path.
func parseJest(data []byte, r *Result) error {
	var j jestJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	for _, file := range j.TestResults {
		failed := false
		for _, a := range file.AssertionResults {
			r.Ran++
			if a.Status == "failed" {
				failed = true
				r.Failed = append(r.Failed, a.FullName)
				r.Failures[a.FullName] = strings.Join(a.FailureMessages, "\n")
			}
		}
		if !failed && file.Message != "" && len(file.AssertionResults) == 0 {
			r.Failed = append(r.Failed, file.Name)
			r.Failures[file.Name] = file.Message
		}
	}
	return nil
}
