package pipeline

import (
	"context"
	"time"

	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
)

// StageSetup names the setup command's failures.
const StageSetup = "Setup"

// runSetup runs the repository's `setup:` command on the default branch's
// head, before any model edit: with the network on and no secret, it fills
// the repository's caches, which later commands read offline and cannot
// write. A follow-up runs it on a scratch checkout of the default branch,
// so only what setup leaves in the caches carries over to the PR's tree.
func (a *attempt) runSetup(ctx context.Context) error {
	if a.cfg.Setup == "" {
		return nil
	}
	tree := a.wt.Tree()
	if !a.wt.OnBase() {
		// A follow-up's worktree is the PR's head, written by the model:
		// setup runs on a checkout of the default branch instead.
		base, remove, err := a.wt.BaseCheckout(ctx)
		if err != nil {
			return err
		}
		defer remove()
		tree = base
	}
	c := a.command(a.cfg.Setup, a.cfg.Timeouts.Test, sandbox.Setup)
	c.Tree, c.Egress = tree, a.egressFor(StageSetup)
	res := workspace.Run(ctx, c)
	a.log.Info("command finished", "stage", StageSetup, "exit_code", res.ExitCode, "duration_ms", res.Duration.Milliseconds())
	a.noteCommand(StageSetup, a.cfg.Setup, res, res.Output, "")
	if err := ctx.Err(); err != nil {
		return err
	}
	if res.Err != nil {
		return &outcome.Error{Class: outcome.Deterministic, Stage: StageSetup, Msg: "the setup command could not start: " + res.Err.Error()}
	}
	if res.ExitCode != 0 || res.TimedOut {
		a.output, a.outTitle = res.Output, "Setup output"
		return &outcome.Error{Class: outcome.Deterministic, Stage: StageSetup, Msg: "the setup command failed" + capNote(res), Output: res.Output}
	}
	return nil
}

// command is a repository command of that kind in the attempt's worktree,
// with its cache, its image and the repository's network setting (setup
// always has the network: workspace.Run gives it).
func (a *attempt) command(line string, timeout time.Duration, kind sandbox.Kind) workspace.Command {
	network := sandbox.NoNetwork
	if a.cfg.Network.On {
		network = sandbox.Egress
	}
	return workspace.Command{Tree: a.wt.Tree(), Kind: kind, Line: line, Timeout: timeout, Network: network, Cache: a.cache(),
		Root: a.root.Dir, RootEnv: a.root.Env}
}

// cache is the repository's dependency cache when it has a setup command;
// without one, commands use the host's Go caches read-only, as before.
func (a *attempt) cache() string {
	if a.cfg.Setup == "" {
		return ""
	}
	return a.p.Workspace.CacheDir(a.t.Repo)
}
