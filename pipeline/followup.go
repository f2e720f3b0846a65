package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
	// Conflict: merge the default branch in first (GitHub reports the PR
	// unmergeable); Author and Email sign the merge commit.
	Conflict      bool
	Author, Email string
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
	if f.Conflict {
		if err := a.somethingToMerge(ctx); err != nil {
			return err
		}
		if err := a.mergeBase(ctx); err != nil {
			return err
		}
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
	if strings.TrimSpace(a.t.Followup.Feedback) == "" {
		return nil // a conflict git resolved alone: nothing to ask the model
	}
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

// somethingToMerge ends a follow-up that only answers a conflict when the
// branch already holds the base's head (GitHub's answer was stale, or the
// base went back): it would push nothing, and that head's conflict would
// count as answered with no word on the PR, which then sat unmerged. The
// outcome on the PR says so instead.
func (a *attempt) somethingToMerge(ctx context.Context) error {
	f := a.t.Followup
	if strings.TrimSpace(f.Feedback) != "" {
		return nil // the feedback makes a change either way
	}
	behind, err := a.wt.Query(ctx, "rev-list", "--count", "HEAD.."+a.wt.BaseTip)
	if err != nil {
		return fmt.Errorf("compare PR #%d with its base: %w", f.PR, err)
	}
	if strings.TrimSpace(behind) != "0" {
		return nil
	}
	return &outcome.Error{Class: outcome.Deterministic, Stage: StagePlan, Msg: fmt.Sprintf(
		"GitHub reports PR #%d conflicting with its base, but its head %s already holds the base's head %s: there is nothing to merge. "+
			"Warden leaves the PR unmerged while GitHub shows a conflict; if it still does, resolve it on the branch.",
		f.PR, shortHead(f.HeadSHA), shortHead(a.wt.BaseTip))}
}

func shortHead(sha string) string { return sha[:min(len(sha), 7)] }

// mergeBase brings the default branch into the PR's branch. Hunks git
// cannot merge become feedback: the branch's side is checked out and the
// model re-applies the base's side, under the same guards and tests.
func (a *attempt) mergeBase(ctx context.Context) error {
	f := a.t.Followup
	cs, err := a.wt.MergeBase(ctx, f.Author, f.Email)
	if err != nil {
		return &outcome.Error{Class: outcome.Deterministic, Stage: StagePlan, Msg: "could not merge the base into the branch", Err: err}
	}
	a.log.Info("base merged into the PR's branch", "conflicts", len(cs))
	if len(cs) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(f.Feedback)
	fmt.Fprintf(&b, "The branch conflicts with its base: merging the base's head left %d file(s) that git could not merge. "+
		"Each file now holds the pull request's side; change it so it also keeps what the base's side (between ======= and >>>>>>>) changed:\n", len(cs))
	for _, c := range cs {
		fmt.Fprintf(&b, "<feedback>\n--- %s\n%s</feedback>\n", c.Path, c.Hunks)
		if !slices.Contains(f.Paths, c.Path) {
			f.Paths = append(f.Paths, c.Path)
		}
	}
	f.Feedback = b.String()
	return nil
}
