package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/agent/edit"
	"github.com/warden-bot/warden/guards"
	"github.com/warden-bot/warden/outcome"
)

func (a *attempt) implementStage(ctx context.Context) error {
	if a.t.Followup != nil {
		return a.followupEdit(ctx)
	}
	prompt, err := agent.RenderImplement(a.editInput())
	if err != nil {
		return err
	}
	return a.edit(ctx, "implement", prompt)
}

// edit asks the model for a change and holds it to the guards. A reply that
// cannot be applied is shown its errors once; a change that breaks a guard
// is undone and the model is told why, once. Then it fails for good.
func (a *attempt) edit(ctx context.Context, stage, prompt string) error {
	err := a.askEdit(ctx, stage, prompt)
	if outcome.ClassOf(err) == outcome.ContractFailure {
		a.log.Info("edit could not be applied; feeding the error back", "stage", stage, "err", err)
		err = a.askEdit(ctx, stage, "Your edit could not be applied:\n\n"+err.Error()+"\n\n"+agent.EditFormat())
	}
	if err != nil {
		return err
	}
	verr := a.checkDiff(ctx)
	a.noteGuards("the change", verr)
	if len(guards.AsViolations(verr)) > 0 {
		if rerr := a.wt.Reset(ctx); rerr != nil {
			return fmt.Errorf("undo refused change: %w", rerr)
		}
		a.log.Info("change refused by the guards; asking once more", "stage", stage, "err", verr)
		if err = a.askEdit(ctx, stage, forModel(verr)+"\n\nThe change was undone. "+agent.EditFormat()); err != nil {
			return err
		}
		verr = a.checkDiff(ctx)
		a.noteGuards("the change", verr)
	}
	if verr != nil {
		_ = a.wt.Reset(context.WithoutCancel(ctx)) // nothing refused stays in the worktree
		return verr
	}
	a.noteDiff(ctx, stage)
	return nil
}

// apply turns a reply into file edits inside the worktree. An exec agent
// may have edited files itself and print nothing to apply.
func (a *attempt) apply(reply string) ([]string, error) {
	blocks, err := edit.Parse(reply)
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		if _, ok := a.session.(*ExecSession); ok {
			return nil, nil // an external agent may have edited the files itself
		}
		if s, ok := a.session.(interface{ EditsItself() bool }); ok && s.EditsItself() {
			return nil, nil // an agent CLI edits the files with its tools
		}
		return nil, &outcome.Error{Class: outcome.ContractFailure, Stage: StageImplement, Msg: "the reply has no SEARCH/REPLACE blocks"}
	}
	res, err := edit.Apply(edit.DirFS(a.wt.Dir), blocks)
	return res.Files, err
}

// checkDiff judges the real worktree diff (tracked, untracked and deleted
// files alike) against the mode's limits.
func (a *attempt) checkDiff(ctx context.Context) error {
	changes, err := a.wt.Changes(ctx)
	if err != nil {
		return fmt.Errorf("read worktree diff: %w", err)
	}
	if len(changes) == 0 {
		return &outcome.Error{Class: outcome.Hollow, Stage: StageImplement, Msg: "the reply changed no file"}
	}
	a.files = a.files[:0]
	for _, c := range changes {
		a.files = append(a.files, c.Path)
	}
	if err := guards.CheckDiff(changes, a.policy.Limits); err != nil {
		return &outcome.Error{Class: outcome.GuardViolation, Stage: StageSecurity, Msg: err.Error(), Err: err}
	}
	return nil
}

func forModel(err error) string {
	var s string
	for _, v := range guards.AsViolations(err) {
		s += "- " + v.ForModel() + "\n"
	}
	if s == "" && err != nil {
		var oe *outcome.Error
		if errors.As(err, &oe) {
			return oe.Msg
		}
		return err.Error()
	}
	return "Your change was refused:\n" + s
}
