package testreport

import (
	"slices"
	"strings"
	"testing"
)

func TestInstrumentAddsAReporterOnlyToPlainCommands(t *testing.T) {
	for _, c := range []struct {
		line, want string
		kind       Kind
	}{
		{"go test ./...", "go test -json ./...", GoJSON},
		{"go test -race -count=1 ./calc/", "go test -json -race -count=1 ./calc/", GoJSON},
		{"go test -json ./...", "go test -json ./...", GoJSON},
		{"go test ./... && go vet ./...", "go test ./... && go vet ./...", Status},
		{"go test -c ./calc", "go test -c ./calc", Status},
		{"go test ./... -args -flag", "go test ./... -args -flag", Status},
		{"make test", "make test", Status},
		{"GOFLAGS=-x go test ./...", "GOFLAGS=-x go test ./...", Status},
		{"node --test", "node --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=$HOME/.warden-junit.xml --test", NodeJU},
		{"node --test --test-reporter=tap", "node --test --test-reporter=tap", Status},
		{"npm test", "npm test", Status},
		{"cargo test", "cargo test", Cargo},
		{"./mvnw -q test", "./mvnw -q test", Files},
	} {
		p := Instrument(c.line)
		if p.Line != c.want || p.Kind != c.kind || p.Orig != c.line {
			t.Errorf("Instrument(%q) = %q (%s), want %q (%s)", c.line, p.Line, p.Kind, c.want, c.kind)
		}
	}
}

func TestRerunSelectsOnlyTheNamedTests(t *testing.T) {
	p := Instrument("go test ./...")
	line, ok := p.Rerun([]string{"example.com/m/b TestB", "example.com/m/a TestA"})
	if !ok || line != "go test -json ./... -count=1 -run '^(TestA|TestB)$'" {
		t.Fatalf("Rerun = %q, %v", line, ok)
	}
	if _, ok := p.Rerun([]string{"example.com/m/a"}); ok {
		t.Fatal("a package that failed as a whole was narrowed to a test")
	}
	if _, ok := Instrument("make test").Rerun([]string{CommandID("make test")}); ok {
		t.Fatal("an exit-status command was narrowed")
	}
	n := Instrument("node --test")
	line, ok = n.Rerun([]string{"suite > it's inner"})
	if !ok || !strings.Contains(line, `--test-name-pattern='^(it'\''s inner|suite)$' `) || !strings.HasSuffix(line, " --test") {
		t.Fatalf("node Rerun = %q", line)
	}
}

const goOut = `{"Action":"start","Package":"example.com/m/a"}
{"Action":"run","Package":"example.com/m/a","Test":"TestOK"}
{"Action":"output","Package":"example.com/m/a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"example.com/m/a","Test":"TestOK"}
{"Action":"run","Package":"example.com/m/a","Test":"TestBad"}
{"Action":"run","Package":"example.com/m/a","Test":"TestBad/sub"}
{"Action":"output","Package":"example.com/m/a","Test":"TestBad/sub","Output":"    a_test.go:9: broken on purpose\n"}
{"Action":"fail","Package":"example.com/m/a","Test":"TestBad/sub"}
{"Action":"output","Package":"example.com/m/a","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"example.com/m/a","Test":"TestBad"}
{"Action":"fail","Package":"example.com/m/a"}
{"ImportPath":"example.com/m/b","Action":"build-output","Output":"b/b.go:3:1: syntax error\n"}
{"Action":"fail","Package":"example.com/m/b","FailedBuild":"example.com/m/b"}
`

func TestParseGoNamesTopLevelTestsAndBrokenPackages(t *testing.T) {
	r := Instrument("go test ./...").Parse(goOut, 1, false, "", nil)
	want := []string{"example.com/m/a TestBad", "example.com/m/b"}
	if !slices.Equal(r.Failed, want) || r.Ran != 2 {
		t.Fatalf("Failed = %q, Ran = %d", r.Failed, r.Ran)
	}
	if !strings.Contains(r.Failures["example.com/m/a TestBad"], "broken on purpose") || !strings.Contains(r.Failures["example.com/m/b"], "syntax error") {
		t.Fatalf("failures = %q", r.Failures)
	}
	if strings.Contains(r.Output, `"Action"`) || !strings.Contains(r.Output, "--- PASS: TestOK") {
		t.Fatalf("output is not the runner's text:\n%s", r.Output)
	}
}

func TestParseFallsBackToTheExitStatus(t *testing.T) {
	p := Instrument("node --test") // no report written: the node binary never started
	r := p.Parse("node: not found", 127, false, "", nil)
	if r.Structured || !slices.Equal(r.Failed, []string{"command: node --test"}) {
		t.Fatalf("r = %+v", r)
	}
	if r := Instrument("make test").Parse("ok", 0, false, "", nil); !r.Green() {
		t.Fatalf("a passing command failed: %+v", r)
	}
}

const nodeXML = `<?xml version="1.0" encoding="utf-8"?>
<testsuites>
	<testcase name="adds" time="0.000982" classname="test"/>
	<testcase name="breaks" time="0.015961" classname="test" failure="Expected values to be strictly equal:1 !== 2">
		<failure type="testCodeFailure" message="Expected values to be strictly equal:1 !== 2">1 !== 2 at a.test.js:3</failure>
	</testcase>
	<testsuite name="suite" tests="1" failures="1">
		<testcase name="inner" classname="test"><failure message="inner broke"/></testcase>
	</testsuite>
</testsuites>`

func TestParseNodeJUnit(t *testing.T) {
	p := Instrument("node --test")
	if p.Report != ReportName {
		t.Fatalf("Report = %q", p.Report)
	}
	r := p.Parse("spec output", 1, false, "", []byte(nodeXML))
	if !r.Structured || !slices.Equal(r.Failed, []string{"breaks", "suite > inner"}) || r.Ran != 3 {
		t.Fatalf("r = %+v", r)
	}
	if !strings.Contains(r.Failures["breaks"], "a.test.js:3") {
		t.Fatalf("failure text = %q", r.Failures["breaks"])
	}
}

func TestParseCargo(t *testing.T) {
	out := "running 2 tests\ntest a::ok ... ok\ntest a::bad ... FAILED\n\nfailures:\n\n---- a::bad stdout ----\nassertion failed\n\ntest result: FAILED. 1 passed; 1 failed\n"
	r := Instrument("cargo test").Parse(out, 101, false, "", nil)
	if !slices.Equal(r.Failed, []string{"a::bad"}) || !strings.Contains(r.Failures["a::bad"], "assertion failed") {
		t.Fatalf("r = %+v", r)
	}
}

const pytestXML = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1" tests="2">
<testcase classname="tests.test_calc" name="test_add" time="0.001"/>
<testcase classname="tests.test_calc" name="test_sub[2-3]" time="0.001"><failure message="assert -1 == 5">tests/test_calc.py:7: AssertionError</failure></testcase>
</testsuite></testsuites>`

func TestPytestGetsAJUnitReportAndNarrowsReRunsWithK(t *testing.T) {
	p := Instrument("python3 -m pytest -q tests")
	if p.Kind != Pytest || p.Line != "python3 -m pytest -q tests --junitxml=$HOME/.warden-junit.xml" {
		t.Fatalf("plan = %+v", p)
	}
	if Instrument("pytest -k slow").Kind != Status {
		t.Fatal("a command that selects with -k was given a reporter whose re-run would replace it")
	}
	r := p.Parse("", 1, false, "", []byte(pytestXML))
	if !slices.Equal(r.Failed, []string{"pytest > tests.test_calc > test_sub[2-3]"}) || r.Ran != 2 {
		t.Fatalf("r = %+v", r)
	}
	if line, ok := p.Rerun(r.Failed); !ok || !strings.HasSuffix(line, " -k 'test_sub'") {
		t.Fatalf("Rerun = %q", line)
	}
}

func TestSurefireIdsNameTheClassOnce(t *testing.T) {
	var r Result
	r.Failures = map[string]string{}
	xml := `<testsuite name="com.x.FooTest"><testcase name="testA" classname="com.x.FooTest"><error message="boom"/></testcase></testsuite>`
	if err := parseJUnit([]byte(xml), &r); err != nil || !slices.Equal(r.Failed, []string{"com.x.FooTest > testA"}) {
		t.Fatalf("r = %+v, %v", r, err)
	}
}

const jestOut = `{"numFailedTests":1,"testResults":[
 {"name":"/w/calc.test.js","message":"","assertionResults":[
  {"fullName":"calc adds","title":"adds","status":"passed","failureMessages":[]},
  {"fullName":"calc multiplies","title":"multiplies","status":"failed","failureMessages":["expected 6, got 5"]}]},
 {"name":"/w/broken.test.js","message":"SyntaxError: Unexpected token","assertionResults":[]}]}`

func TestJestAndVitestGetAReportFile(t *testing.T) {
	p := Instrument("npx jest --ci")
	if p.Kind != Jest || p.Line != "npx jest --ci --json --outputFile=$HOME/.warden-jest.json" || p.Report != JSONName {
		t.Fatalf("jest plan = %+v", p)
	}
	r := p.Parse("", 1, false, "", []byte(jestOut))
	if !slices.Equal(r.Failed, []string{"/w/broken.test.js", "calc multiplies"}) || r.Ran != 2 || r.Failures["calc multiplies"] != "expected 6, got 5" {
		t.Fatalf("r = %+v", r)
	}
	if line, ok := p.Rerun([]string{"calc multiplies"}); !ok || !strings.HasSuffix(line, " -t '(calc multiplies)'") {
		t.Fatalf("Rerun = %q", line)
	}
	v := Instrument("vitest run")
	if v.Kind != NodeJU || !strings.Contains(v.Line, "--reporter=default --reporter=junit --outputFile.junit=$HOME/.warden-junit.xml") {
		t.Fatalf("vitest plan = %+v", v)
	}
	for _, line := range []string{"vitest", "jest -t slow", "jest --json"} {
		if Instrument(line).Kind != Status {
			t.Errorf("%q got a reporter: watch mode, or a selection a re-run would replace", line)
		}
	}
}
