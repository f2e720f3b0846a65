package environment

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/warden-bot/warden/environment/testreport"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
)

// TestRun is one run of a test plan in a tree, read test by test.
func (e *Env) TestRun(ctx context.Context, stage string, tree sandbox.Tree, line string, plan testreport.Plan) (workspace.Result, testreport.Result) {
	plan.ClearReports(tree.Dir)
	max := 0
	if plan.Kind == testreport.GoJSON {
		max = 16 << 20 // events are verbose; what the model sees is cut later
	}
	c := e.Command(line, e.cfg.Timeouts.Test, sandbox.Test) // the image, cache and network the test stage has
	c.Tree, c.MaxOutput, c.Report, c.Egress = tree, max, plan.Report, e.EgressFor(stage)
	res := workspace.Run(ctx, c)
	msg := "command finished"
	if stage == StageBaseline {
		msg = "baseline finished" // concurrent with the model: not on the critical path
	}
	e.Log.Info(msg, "stage", stage, "exit_code", res.ExitCode, "duration_ms", res.Duration.Milliseconds())
	r := plan.Parse(res.Output, res.ExitCode, res.TimedOut || res.Cap != "", tree.Dir, res.Report)
	r.Output = CutMiddle(r.Output, 64<<10)                // as much as a plain run keeps
	e.note(stage, e.cfg.Test, res, r.Output, testsRan(r)) // the runner's text, not its JSON
	return res, r
}

// runBaseline runs the test command on the base copy and caches the result
// when it is one (a command that could not start, or was killed, is not).
func (e *Env) runBaseline(ctx context.Context, bc *workspace.BaseCopy, plan testreport.Plan) (Baseline, error) {
	res, r := e.TestRun(ctx, StageBaseline, bc.Tree(), plan.Line, plan)
	if res.Err != nil || res.Canceled || ctx.Err() != nil {
		return Baseline{}, fmt.Errorf("baseline on %s: %w", bc.SHA, firstErr(res.Err, ctx.Err(), context.Canceled))
	}
	return Baseline{Repo: e.Repo, Base: bc.SHA, Command: e.cfg.Test, Structured: r.Structured, Failed: r.Failed,
		Output: outcome.Trim(r.Output, 16<<10), At: time.Now().UTC()}, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// testsRan says, after a test command, how many tests ran and failed when
// the runner told.
func testsRan(r testreport.Result) string {
	if !r.Structured || r.Ran < 0 {
		return ""
	}
	return fmt.Sprintf(", %d tests ran, %d failed,", r.Ran, len(r.Failed))
}

// CutMiddle keeps the head and tail of s within n bytes.
func CutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n/2], "") + "\n[… cut …]\n" + strings.ToValidUTF8(s[len(s)-n/2:], "")
}
