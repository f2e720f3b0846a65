package pipeline

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/warden-bot/warden/environment"
	"github.com/warden-bot/warden/environment/testreport"
	"github.com/warden-bot/warden/environment/workspace"
)

// reruns is how often a test failing only after the change runs again on
// the changed tree before it counts as the change's.
const reruns = 2

// verdict is one test run after the change, judged against the baseline.
type verdict struct {
	res        workspace.Result
	run        testreport.Result
	hasBase    bool
	base       environment.Baseline
	pre        []string // failing on the base too, and not what the issue is about
	issue      []string // failing on the base too, but the issue is about them: the model's
	flaky      []string
	caused     []string
	fixedOther []string // failed on the base, pass now, and the issue is not about them
}

// green reports whether nothing the change or the issue owns fails.
func (v verdict) green() bool { return len(v.caused) == 0 && len(v.issue) == 0 }

// theirs is what the model is handed: the failures that are its job.
func (v verdict) theirs() []string { return append(slices.Clone(v.issue), v.caused...) }

// modelOutput is the test output the fix prompt quotes: only the failures
// that are the model's, when the runner named them; else all of it.
func (v verdict) modelOutput() string {
	if !v.run.Structured || !v.hasBase {
		return v.run.Output
	}
	var b strings.Builder
	for _, id := range v.theirs() {
		b.WriteString("=== " + id + "\n" + v.run.Failures[id] + "\n")
	}
	if b.Len() == 0 {
		return v.run.Output
	}
	return environment.CutMiddle(b.String(), 60<<10)
}

// judgeTests runs the test command on the changed tree and sorts its
// failures: the base's, flaky ones (re-run), and the change's.
func (a *attempt) judgeTests(ctx context.Context) verdict {
	plan := a.env.TestPlan()
	res, r := a.env.TestRun(ctx, StageTest, a.wt.Tree(), plan.Line, plan)
	v := verdict{res: res, run: r}
	if res.Err != nil || ctx.Err() != nil {
		return v
	}
	v.base, v.hasBase = a.env.BaseWait(ctx)
	if !v.hasBase {
		v.caused = r.Failed
		return v
	}
	var fresh []string
	for _, id := range r.Failed {
		switch {
		case !v.base.Failing(id):
			fresh = append(fresh, id)
		case strings.HasPrefix(id, "command: "), a.issueAbout(id):
			// A command that fails as a whole ran no test to compare: as
			// before the baseline, it is the model's to make pass.
			v.issue = append(v.issue, id)
		default:
			v.pre = append(v.pre, id)
		}
	}
	for _, id := range v.base.Failed {
		if !slices.Contains(r.Failed, id) && !a.issueAbout(id) {
			v.fixedOther = append(v.fixedOther, id)
		}
	}
	v.flaky, v.caused = a.rerun(ctx, fresh)
	return v
}

// rerun runs the tests failing only after the change again, only those
// where the runner can select them: up to reruns times on the changed
// tree, then those still failing once on the base. Passing on a re-run, or
// failing on the base, makes a test flaky; the rest are the change's.
func (a *attempt) rerun(ctx context.Context, fresh []string) (flaky, caused []string) {
	plan := a.env.TestPlan()
	var built []string // a Go package that failed outside any test: a build error, not a flake
	for _, id := range fresh {
		if plan.Kind == testreport.GoJSON && !strings.Contains(id, " ") {
			built = append(built, id)
		} else {
			caused = append(caused, id)
		}
	}
	defer func() { caused = append(caused, built...) }()
	for i := 0; i < reruns && len(caused) > 0 && ctx.Err() == nil; i++ {
		line, _ := plan.Rerun(caused)
		_, r := a.env.TestRun(ctx, StageTest, a.wt.Tree(), line, plan)
		caused, flaky = split(caused, r.Failed, flaky)
	}
	if len(caused) == 0 || ctx.Err() != nil {
		return flaky, caused
	}
	bc, ok := a.env.BaseForRerun(ctx)
	if !ok {
		return flaky, caused
	}
	line, _ := plan.Rerun(caused)
	_, r := a.env.TestRun(ctx, StageBaseline+" re-run", bc.Tree(), line, plan) // on the critical path: "command finished"
	var stillGreen []string
	for _, id := range caused {
		if slices.Contains(r.Failed, id) {
			flaky = append(flaky, id) // green on the first base run, red now
		} else {
			stillGreen = append(stillGreen, id)
		}
	}
	return flaky, stillGreen
}

// split moves the ids that passed this run from failing to passed.
func split(failing, failedNow, passed []string) (still, pass []string) {
	for _, id := range failing {
		if slices.Contains(failedNow, id) {
			still = append(still, id)
		} else {
			passed = append(passed, id)
		}
	}
	return still, passed
}

// issueAbout reports whether a test is what the issue is about: named in
// it, or in a package holding a file the plan set out to change. A test
// the issue is about stays the model's job even if it fails on the base.
func (a *attempt) issueAbout(id string) bool {
	text := strings.ToLower(a.t.Title + "\n" + a.t.Body)
	name := id // "<package> TestX" for Go, "suite > name" for JUnit
	if i := strings.LastIndex(id, " "); i >= 0 && a.env.TestPlan().Kind == testreport.GoJSON {
		name = id[i+1:]
	} else if i := strings.LastIndex(id, " > "); i >= 0 {
		name = id[i+3:]
	}
	name, _, _ = strings.Cut(name, "/")
	if n := strings.ToLower(name); len(n) >= 4 && strings.Contains(text, n) {
		return true
	}
	if short := strings.ToLower(strings.TrimPrefix(name, "Test")); short != strings.ToLower(name) && len(short) >= 3 && strings.Contains(text, short) {
		return true
	}
	for _, f := range a.plan.Files { // a test named after the unit the plan changes
		unit := strings.ToLower(strings.TrimSuffix(path.Base(f), path.Ext(f)))
		if len(unit) >= 3 && strings.Contains(strings.ToLower(name), unit) {
			return true
		}
	}
	pkg, _, ok := strings.Cut(id, " ")
	if !ok || a.env.TestPlan().Kind != testreport.GoJSON {
		return false
	}
	for _, f := range a.plan.Files {
		dir := path.Dir(f)
		if dir == "." && pkg == a.goModule() || dir != "." && strings.HasSuffix(pkg, "/"+dir) {
			return true
		}
	}
	return false
}

// goModule is the worktree's Go module path, or "".
func (a *attempt) goModule() string {
	data, err := a.wt.ReadFile("go.mod")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	return ""
}
