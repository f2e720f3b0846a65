package pipeline

import (
	"context"
	"fmt"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/environment"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
	"time"
)

// testStage runs the repository's test command; while it fails and the fix
// budget lasts, each failure goes to the model verbatim for one fix.
func (a *attempt) testStage(ctx context.Context) error {
	if a.cfg.Test == "" {
		return &outcome.Error{Class: outcome.Deterministic, Stage: StageTest, Msg: "no test command: set `test:` in .github/warden.yml (Completed needs passing tests)"}
	}
	for fix := 0; ; fix++ {
		v := a.judgeTests(ctx)
		a.tests = &v
		res := v.res
		a.output, a.outTitle = v.run.Output, "Test output"
		if err := ctx.Err(); err != nil {
			return err
		}
		if res.Err != nil {
			return &outcome.Error{Class: outcome.Deterministic, Stage: StageTest, Msg: "the test command could not start: " + res.Err.Error()}
		}
		if v.green() {
			if v.run.Ran == 0 || outcome.CountGoTests(v.run.Output) == 0 {
				return &outcome.Error{Class: outcome.Hollow, Stage: StageTest, Msg: "the test command passed without running any test", Output: v.run.Output}
			}
			a.countFlaky(ctx, v.flaky)
			return nil
		}
		if fix >= a.cfg.MaxFixAttempts {
			return &outcome.Error{Class: outcome.TestFailure, Stage: StageTest, Output: v.modelOutput(),
				Msg: fmt.Sprintf("the tests still fail after %d fix attempts", fix) + environment.CapNote(res)}
		}
		a.tr.stage(ctx, StageTest, "running", fmt.Sprintf("fix %d of %d", fix+1, a.cfg.MaxFixAttempts))
		in := a.editInput()
		prompt, err := agent.RenderFix(agent.FixInput{EditInput: in, TestOutput: v.modelOutput(), Attempt: fix + 1})
		if err != nil {
			return err
		}
		if err := a.edit(ctx, "fix", prompt); err != nil {
			return err
		}
	}
}

// runCommand runs a repository command in the worktree and logs its time,
// which is the repository's, not Warden's (docs/BENCHMARKS.md subtracts it).
func (a *attempt) runCommand(ctx context.Context, stage, line string, timeout time.Duration) workspace.Result {
	kind := sandbox.Test
	if stage == StageSecurity {
		kind = sandbox.Security
	}
	c := a.env.Command(line, timeout, kind)
	c.Egress = a.env.EgressFor(stage)
	res := workspace.Run(ctx, c)
	a.log.Info("command finished", "stage", stage, "exit_code", res.ExitCode, "duration_ms", res.Duration.Milliseconds())
	a.noteCommand(stage, line, res, res.Output, "")
	return res
}

// securityStage re-checks the final diff and runs the optional security command.
func (a *attempt) securityStage(ctx context.Context) error {
	if err := a.checkDiff(ctx); err != nil {
		return err
	}
	if a.cfg.Security == "" {
		return nil
	}
	res := a.runCommand(ctx, StageSecurity, a.cfg.Security, a.cfg.Timeouts.Test)
	if err := ctx.Err(); err != nil {
		return err
	}
	if res.Err != nil { // no sandbox: the message says what to install
		return &outcome.Error{Class: outcome.Deterministic, Stage: StageSecurity, Msg: "the security command could not start: " + res.Err.Error()}
	}
	if res.ExitCode != 0 || res.TimedOut {
		a.output, a.outTitle = res.Output, "Security check output"
		return &outcome.Error{Class: outcome.GuardViolation, Stage: StageSecurity, Msg: "the security check failed" + environment.CapNote(res), Output: res.Output}
	}
	return nil
}

// reviewStage asks the model to judge the diff against the issue. It can only
// hold a result back; the deterministic checks already had their say.
func (a *attempt) reviewStage(ctx context.Context) error {
	// The tree the guards judged, which is the tree released: what the
	// security command changed on disk since is in neither.
	diff, err := a.wt.JudgedDiff(ctx)
	if err != nil {
		return fmt.Errorf("diff for review: %w", err)
	}
	rv, err := a.askReview(ctx, agent.ReviewInput{Issue: a.issueInput(), Diff: diff})
	if err != nil {
		return err
	}
	a.review = rv
	if rv.GoalStatus == outcome.GoalHollow {
		return &outcome.Error{Class: outcome.Hollow, Stage: StageReview, Msg: "the review found the change hollow: " + rv.Missing}
	}
	return nil
}

// releaseStage publishes the change. Nothing is pushed once the task is canceled.
func (a *attempt) releaseStage(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	summary := a.plan.Summary
	if a.plan.Approach != "" {
		summary += "\n\nApproach: " + a.plan.Approach
	}
	if note := a.testsNote(); note != "" {
		summary += "\n\n" + note
	}
	rel, err := a.host.Release(ctx, a.wt, ReleaseInput{Title: a.t.Title, Summary: summary, Mode: a.t.Mode, Files: a.files,
		Owners: ownersOf(a.in, a.files), Labeller: a.t.Sender})
	if err != nil {
		return err
	}
	if rel.PR == 0 && rel.HeadSHA == "" {
		return &outcome.Error{Class: outcome.Hollow, Stage: StageRelease, Msg: "release produced neither a commit nor a pull request"}
	}
	a.release = rel
	return nil
}
