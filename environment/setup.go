package environment

import (
	"context"

	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/sandbox/egress"
)

// StageSetup names the setup command's failures.
const StageSetup = "Setup"

// RunSetup runs the repository's `setup:` command on the default branch's
// head, before any model edit: with the network on and no secret, it fills
// the repository's caches, which later commands read offline and cannot
// write. A follow-up runs it on a scratch checkout of the default branch,
// so only what setup leaves in the caches carries over to the PR's tree.
func (e *Env) RunSetup(ctx context.Context) error {
	if e.cfg.Setup == "" {
		return nil
	}
	tree := e.wt.Tree()
	if !e.wt.OnBase() {
		// A follow-up's worktree is the PR's head, written by the model:
		// setup runs on a checkout of the default branch instead.
		base, remove, err := e.wt.BaseCheckout(ctx)
		if err != nil {
			return err
		}
		defer remove()
		tree = base
	}
	c := e.Command(e.cfg.Setup, e.cfg.Timeouts.Test, sandbox.Setup)
	c.Tree, c.Egress = tree, e.EgressFor(StageSetup)
	var seen connLog
	onConn := c.Egress.OnConn
	c.Egress.OnConn = func(conn egress.Conn) { seen.add(conn); onConn(conn) }
	res := workspace.Run(ctx, c)
	e.Log.Info("command finished", "stage", StageSetup, "exit_code", res.ExitCode, "duration_ms", res.Duration.Milliseconds())
	e.note(StageSetup, e.cfg.Setup, res, res.Output, "")
	if err := ctx.Err(); err != nil {
		return err
	}
	if res.Err != nil {
		return &outcome.Error{Class: outcome.Deterministic, Stage: StageSetup, Msg: "the setup command could not start: " + res.Err.Error()}
	}
	if res.ExitCode != 0 || res.TimedOut {
		e.quote(res.Output, "Setup output")
		msg := "the setup command failed" + CapNote(res)
		if why := networkFailure(e.cfg.Setup, res.Output, seen.list()); why != "" && !res.TimedOut {
			msg = why
		}
		return &outcome.Error{Class: outcome.Deterministic, Stage: StageSetup, Msg: msg, Output: res.Output}
	}
	return nil
}
