package pipeline

import (
	"context"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/workspace"
)

// StageSetup names the setup command's failures.
const StageSetup = "Setup"

// runSetup runs the repository's `setup:` command on the base commit, before
// any model edit: with the network on and no secret, it fills the
// repository's caches, which later commands read offline and cannot write.
func (a *attempt) runSetup(ctx context.Context) error {
	if a.cfg.Setup == "" {
		return nil
	}
	c := a.command(a.cfg.Setup, a.cfg.Timeouts.Test)
	c.Setup, c.Network = true, false // Setup turns the network on by itself
	res := workspace.Run(ctx, c)
	a.log.Info("command finished", "stage", StageSetup, "exit_code", res.ExitCode, "duration_ms", res.Duration.Milliseconds())
	if err := ctx.Err(); err != nil {
		return err
	}
	if res.Err != nil {
		return &outcome.Error{Class: outcome.Deterministic, Stage: StageSetup, Msg: "the setup command could not start: " + res.Err.Error()}
	}
	if res.ExitCode != 0 || res.TimedOut {
		a.output, a.outTitle = res.Output, "Setup output"
		return &outcome.Error{Class: outcome.Deterministic, Stage: StageSetup, Msg: "the setup command failed", Output: res.Output}
	}
	return nil
}

// command is a repository command in the attempt's worktree, with its
// cache and the repository's network setting.
func (a *attempt) command(line string, timeout time.Duration) workspace.Command {
	return workspace.Command{Dir: a.wt.Dir, Line: line, Timeout: timeout, Network: a.cfg.Network, Cache: a.cache(),
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
