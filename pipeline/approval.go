package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/outcome"
)

// StateAwaitingApproval is the state label of an issue whose run stopped
// after Plan until a writer approves the posted plan (plan_approval).
const StateAwaitingApproval = "awaiting-approval"

// PlanMarker opens the comment that shows a plan awaiting approval.
const PlanMarker = "<!-- warden:plan -->"

// planPoster is a host that can show a plan for approval (GitHubHost).
type planPoster interface {
	PostPlan(ctx context.Context, body string) error
}

// awaitingPlan is what is kept of a plan until a writer approves it.
type awaitingPlan struct {
	Mode    string     `json:"mode"`
	Attempt int        `json:"attempt"`
	Plan    agent.Plan `json:"plan"`
}

// awaitApproval stops the attempt after a plan to implement when the mode
// asks for plan approval: the plan is kept (Redis) and shown on the issue,
// and the run ends without holding a worker. A run that continues an
// approved plan, and modes without plan_approval, go on.
func (a *attempt) awaitApproval(ctx context.Context, plan agent.Plan) error {
	if !a.policy.PlanApproval || a.approved {
		return nil
	}
	pp, ok := a.host.(planPoster)
	if a.p.Steer == nil || !ok { // fail closed: never implement an unapproved plan
		return &outcome.Error{Class: outcome.Deterministic, Stage: StagePlan,
			Msg: "plan_approval is on, but this Warden has nowhere to keep a plan for approval"}
	}
	b, err := json.Marshal(awaitingPlan{Mode: a.t.Mode, Attempt: a.t.Attempt, Plan: plan})
	if err != nil {
		return fmt.Errorf("encode plan of %s#%d: %w", a.t.Repo, a.t.Issue, err)
	}
	if err := a.p.Steer.SavePlan(ctx, a.t.Repo, a.t.Issue, b); err != nil {
		return err
	}
	if err := pp.PostPlan(ctx, planComment(a.p.Prefix, plan)); err != nil {
		return fmt.Errorf("post plan of %s#%d: %w", a.t.Repo, a.t.Issue, err)
	}
	a.awaiting = true
	a.log.Info("plan awaits approval", "files", len(plan.Files))
	return &ending{rec: outcome.Record{Outcome: outcome.Blocked,
		Approach: plan.Approach, Discoveries: plan.Discoveries,
		Obstacle: outcome.Obstacle{Kind: "plan_approval", Detail: "the plan awaits a maintainer's approval"},
		Summary:  fmt.Sprintf("The plan awaits approval: `/%s approve` implements it, `/%s steer <text>` plans again with the text.", a.p.Prefix, a.p.Prefix)}}
}

// approvedPlan is the plan a writer approved, taken once. Anything else (no
// plan kept, one of another mode, not a plan to implement) is no approval:
// the attempt plans again and asks again.
func (a *attempt) approvedPlan(ctx context.Context) (agent.Plan, bool) {
	if !a.t.Approved || a.p.Steer == nil {
		return agent.Plan{}, false
	}
	b, ok, err := a.p.Steer.TakePlan(ctx, a.t.Repo, a.t.Issue)
	if err != nil || !ok {
		a.log.Warn("no approved plan to continue; planning again", "err", err)
		return agent.Plan{}, false
	}
	var ap awaitingPlan
	if err := json.Unmarshal(b, &ap); err != nil || ap.Mode != a.t.Mode || ap.Plan.Decision != "implement" {
		a.log.Warn("approved plan unusable; planning again", "err", err, "plan_mode", ap.Mode)
		return agent.Plan{}, false
	}
	a.approved = true
	return ap.Plan, true
}

// planComment shows a plan for approval. Everything in it but Warden's own
// lines is the model's: neutralised, so it can carry no marker.
func planComment(prefix string, plan agent.Plan) string {
	var b strings.Builder
	b.WriteString(PlanMarker + "\n### Warden's plan awaits approval\n\n")
	fmt.Fprintf(&b, "**Summary.** %s\n\n**Approach.** %s\n\n**Files.**\n", comments.Neutralize(plan.Summary), comments.Neutralize(plan.Approach))
	for _, f := range plan.Files {
		fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(comments.NeutralizeFenced(f), "`", "'"))
	}
	fmt.Fprintf(&b, "\nA user with write access can comment `/%s approve` to implement this plan, or `/%s steer <text>` to plan again with the text. `/%s cancel` drops it.\n", prefix, prefix, prefix)
	return b.String()
}

// PostPlan posts the comment showing a plan for approval.
func (h *GitHubHost) PostPlan(ctx context.Context, body string) error {
	return h.Poster.Reply(ctx, h.Owner, h.Name, h.Number, body)
}
