package lifecycle

import (
	"testing"

	"github.com/google/go-github/v60/github"
)

func run(app, conclusion, text string) *github.CheckRun {
	return &github.CheckRun{Name: github.String("ci"), Status: github.String("completed"), Conclusion: github.String(conclusion),
		App: &github.App{Slug: github.String(app)}, Output: &github.CheckRunOutput{Text: github.String(text)}}
}

func TestFlakyOnlyNeedsEveryFailureNamedAndFlaky(t *testing.T) {
	flaky := []string{"example.com/m/a TestSometimes", "suite > sometimes"}
	for _, c := range []struct {
		name string
		ci   headCI
		want bool
	}{
		{"go flaky only", headCI{runs: []*github.CheckRun{run("actions", "failure", "--- FAIL: TestSometimes (0.01s)\nFAIL"), run("actions", "success", "")}}, true},
		{"a subtest of it", headCI{runs: []*github.CheckRun{run("actions", "failure", "--- FAIL: TestSometimes/once (0.01s)")}}, true},
		{"node spec", headCI{runs: []*github.CheckRun{run("actions", "failure", "✖ sometimes (2.1ms)")}}, true},
		{"another test too", headCI{runs: []*github.CheckRun{run("actions", "failure", "--- FAIL: TestSometimes (0.01s)\n--- FAIL: TestAdd (0s)")}}, false},
		{"no test named", headCI{runs: []*github.CheckRun{run("actions", "failure", "build failed")}}, false},
		{"a red status", headCI{runs: []*github.CheckRun{run("actions", "failure", "--- FAIL: TestSometimes (0s)")},
			statuses: []*github.RepoStatus{{Context: github.String("ci/legacy"), State: github.String("failure")}}}, false},
		{"nothing red", headCI{runs: []*github.CheckRun{run("actions", "success", "")}}, false},
	} {
		if got := c.ci.flakyOnly("warden-test[bot]", flaky); got != c.want {
			t.Errorf("%s: flakyOnly = %v, want %v", c.name, got, c.want)
		}
	}
	if (headCI{runs: []*github.CheckRun{run("actions", "failure", "--- FAIL: TestSometimes")}}).flakyOnly("warden-test[bot]", nil) {
		t.Error("red CI merged with no test marked flaky")
	}
}
