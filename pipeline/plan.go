package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/guards"
	"github.com/warden-bot/warden/outcome"
)

// planStage asks for a plan and acts on its decision. A maintenance plan over
// the file limit is not attempted: the planner is asked once to split it,
// and a plan that still does not fit is decomposed (or escalated without
// subtasks).
func (a *attempt) planStage(ctx context.Context) error {
	if plan, ok := a.approvedPlan(ctx); ok {
		a.plan = plan
		return a.decide(ctx, plan) // the guards judge an approved plan again
	}
	plan, err := a.planWithReads(ctx, "")
	if err != nil {
		return err
	}
	if plan.Decision == "implement" && overFileLimit(guards.CheckPlan(plan.Files, a.policy.Limits)) && a.t.Mode == "maintenance" {
		feedback := fmt.Sprintf("Your plan touches %d files; maintenance mode allows at most %d. Split the work: answer with decision \"decompose\" and at least two subtasks, each small enough for %d files.",
			len(plan.Files), a.policy.MaxFiles, a.policy.MaxFiles)
		if plan, err = a.planWithReads(ctx, feedback); err != nil {
			return err
		}
		if plan.Decision == "implement" && overFileLimit(guards.CheckPlan(plan.Files, a.policy.Limits)) {
			if len(plan.Subtasks) < 2 {
				return &outcome.Error{Class: outcome.GuardViolation, Stage: StagePlan,
					Msg: fmt.Sprintf("the plan touches %d files, over the maintenance limit of %d, and lists no subtasks to split it into", len(plan.Files), a.policy.MaxFiles)}
			}
			plan.Decision = "decompose"
		}
	}
	a.plan = plan
	a.notePlan(plan)
	if err := a.decide(ctx, plan); err != nil {
		return err
	}
	return a.awaitApproval(ctx, plan)
}

func (a *attempt) decide(ctx context.Context, plan agent.Plan) error {
	base := outcome.Record{Approach: plan.Approach, Obstacle: plan.Obstacle, Discoveries: plan.Discoveries, Recommendation: plan.Recommendation, Summary: plan.Summary}
	switch plan.Decision {
	case "decompose":
		return a.decompose(ctx, plan, base)
	case "defer":
		base.Outcome = outcome.Deferred
		return &ending{rec: base}
	case "block":
		base.Outcome = outcome.Blocked
		return &ending{rec: base}
	case "escalate":
		base.Outcome, base.FailureClass = outcome.Escalated, outcome.Deterministic
		return &ending{rec: base}
	}
	if len(plan.Files) == 0 {
		return &outcome.Error{Class: outcome.Hollow, Stage: StagePlan, Msg: "the plan names no files to change"}
	}
	err := guards.CheckPlan(plan.Files, a.policy.Limits)
	a.noteGuards("the plan", err)
	if err != nil {
		return &outcome.Error{Class: outcome.GuardViolation, Stage: StagePlan, Msg: err.Error(), Err: err}
	}
	return nil
}

func (a *attempt) decompose(ctx context.Context, plan agent.Plan, base outcome.Record) error {
	d := a.cfg.Decomposition
	switch {
	case len(plan.Subtasks) < 2:
		return &outcome.Error{Class: outcome.ContractFailure, Stage: StagePlan, Msg: "decision decompose needs at least two subtasks"}
	case a.t.Depth+1 > d.MaxDepth:
		return &outcome.Error{Class: outcome.GuardViolation, Stage: StagePlan, Msg: fmt.Sprintf("decomposing would nest sub-issues %d deep; the limit is %d", a.t.Depth+1, d.MaxDepth)}
	case len(plan.Subtasks) > d.MaxSubtasks:
		return &outcome.Error{Class: outcome.GuardViolation, Stage: StagePlan, Msg: fmt.Sprintf("the plan splits into %d subtasks; the limit is %d", len(plan.Subtasks), d.MaxSubtasks)}
	}
	if a.p.Tree != nil {
		if n, err := a.p.Tree(ctx, a.t); err == nil && n+len(plan.Subtasks) > d.MaxTasksPerTree {
			return &outcome.Error{Class: outcome.GuardViolation, Stage: StagePlan, Msg: fmt.Sprintf("the decomposition tree would hold %d tasks; the limit is %d", n+len(plan.Subtasks), d.MaxTasksPerTree)}
		}
	}
	subs := make([]Subtask, 0, len(plan.Subtasks))
	for _, s := range plan.Subtasks {
		subs = append(subs, Subtask{Title: s.Title, Body: s.Body, Depth: a.t.Depth + 1})
	}
	nums, err := a.host.Decompose(ctx, subs)
	if err != nil {
		return err
	}
	refs := make([]string, 0, len(nums))
	for _, n := range nums {
		refs = append(refs, fmt.Sprintf("#%d", n))
	}
	base.Outcome = outcome.Decomposed
	base.Summary = "Split into " + strings.Join(refs, ", ") + "; this issue completes when they do."
	if missing := a.spawn(ctx, nums); len(missing) > 0 {
		var ms []string
		for _, n := range missing {
			ms = append(ms, fmt.Sprintf("#%d", n))
		}
		base.Summary += fmt.Sprintf(" Warden could not queue %s; label them `%s:%s` to start them.", strings.Join(ms, ", "), a.p.Prefix, a.t.Mode)
	}
	base.Discoveries = append(base.Discoveries, "sub-issues: "+strings.Join(refs, ", "))
	return &ending{rec: base}
}

func overFileLimit(err error) bool {
	for _, v := range guards.AsViolations(err) {
		if v.Rule == "blast_radius_files" {
			return true
		}
	}
	return false
}
