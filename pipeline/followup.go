package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/outcome"
)

// Followup is a follow-up attempt on the open PR Warden made for the issue:
// it continues the PR's branch from its head with the maintainers' feedback
// and pushes one more commit to it.
type Followup struct {
	PR       int
	Branch   string // the PR's head ref, kept whatever the title says now
	HeadSHA  string // the head the feedback was about; the push leases on it
	Feedback string // the feedback section, quoted and fenced
	Paths    []string
	Count    int // this PR's follow-up number, for followups.max
}

// firstStage is Plan, or for a follow-up its deterministic stand-in: the
// plan is the feedback, no model call.
func (a *attempt) firstStage() func(context.Context) error {
	if a.t.Followup == nil {
		return a.planStage
	}
	return a.followupPlan
}

// followupPlan checks the follow-up cap and builds the plan from the PR's
// files and the paths the feedback names.
func (a *attempt) followupPlan(ctx context.Context) error {
	f := a.t.Followup
	if limit := a.cfg.Followups.Max; f.Count > limit {
		return &outcome.Error{Class: outcome.Deterministic, Stage: StagePlan,
			Msg: fmt.Sprintf("PR #%d reached its follow-up limit (followups.max = %d): a maintainer needs to take it from here", f.PR, limit)}
	}
	changes, err := a.wt.Changes(ctx)
	if err != nil {
		return fmt.Errorf("read the PR's diff: %w", err)
	}
	files := slices.Clone(f.Paths)
	for _, c := range changes {
		if !slices.Contains(files, c.Path) {
			files = append(files, c.Path)
		}
	}
	a.plan = agent.Plan{Decision: "implement", Files: files,
		Summary:  fmt.Sprintf("Follow-up on PR #%d: address the maintainers' feedback.", f.PR),
		Approach: "Change the PR's branch as the feedback asks."}
	return nil
}

// followupEdit asks for the change with the feedback and the PR's diff, and
// holds it to the guards on the PR's whole diff against its base.
func (a *attempt) followupEdit(ctx context.Context) error {
	diff, err := a.wt.Diff(ctx)
	if err != nil {
		return fmt.Errorf("diff of PR #%d: %w", a.t.Followup.PR, err)
	}
	prompt, err := agent.RenderFollowup(agent.FollowupInput{EditInput: a.editInput(), PR: a.t.Followup.PR,
		Feedback: a.t.Followup.Feedback, Diff: diff})
	if err != nil {
		return err
	}
	if err := a.edit(ctx, "implement", prompt); err != nil {
		return err
	}
	// The guards judged the whole diff; a follow-up must also change something.
	if same, err := a.wt.Unchanged(ctx); err != nil || same {
		if err == nil {
			err = &outcome.Error{Class: outcome.Hollow, Stage: StageImplement, Msg: "the follow-up changed nothing on the branch"}
		}
		return err
	}
	return nil
}
