package pipeline

import (
	"context"
	"errors"

	"github.com/warden-bot/warden/environment"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/sandbox/egress"
)

// The environment's stage names, as the status comment and logs show them.
const (
	StageSetup    = environment.StageSetup
	StageBaseline = environment.StageBaseline
)

// Images resolves an image reference to an unpacked root file system.
type Images = environment.Images

// newEnv is the attempt's environment, reporting to the attempt's status
// comment, transcript and `bot observe`.
func (a *attempt) newEnv() *environment.Env {
	return &environment.Env{
		Images: a.p.Images, Workspace: a.p.Workspace, Log: a.log, Mirrors: a.p.Mirrors,
		Repo: a.t.Repo, Branch: a.t.DefaultBranch, Prefix: a.p.Prefix,
		Hooks: environment.Hooks{
			Line: a.tr.setEnvironment,
			Note: func(stage, line string, res workspace.Result, output, note string) {
				a.noteCommand(stage, line, res, output, note)
			},
			Quote: func(output, title string) { a.output, a.outTitle = output, title },
			Egress: func(stage string, c egress.Conn) {
				if a.p.OnEgress != nil {
					a.p.OnEgress(a.t, stage, c)
				}
			},
		},
	}
}

// prepareEnvironment settles the commands from the default branch's
// inputs, pulls the image, checks the inferred commands' tools, runs setup
// and starts the baseline. An environment that blocks the attempt ends it.
func (a *attempt) prepareEnvironment(ctx context.Context) error {
	var err error
	if a.cfg, err = a.env.Resolve(a.wt, a.cfg, a.in.Plan); err != nil {
		return asEnding(err)
	}
	for _, step := range []func(context.Context) error{a.env.PullImage, a.env.CheckTools, a.env.RunSetup, a.env.StartBaseline} {
		if err := step(ctx); err != nil {
			return asEnding(err)
		}
	}
	return nil
}

// asEnding turns the environment's blocked verdict into the attempt's ending.
func asEnding(err error) error {
	var b *environment.Blocked
	if errors.As(err, &b) {
		return &ending{rec: b.Record}
	}
	return err
}
