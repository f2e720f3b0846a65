package pipeline

import (
	"context"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/followup/steer"
	"github.com/warden-bot/warden/outcome"
)

// Steering keeps writers' `/warden steer` guidance and the plans awaiting a
// writer's approval (steer.Store). Only the webhook router, after checking
// the sender's permission, adds to it.
type Steering interface {
	Drain(ctx context.Context, repo string, issue int) ([]steer.Note, error)
	SavePlan(ctx context.Context, repo string, issue int, plan []byte) error
	TakePlan(ctx context.Context, repo string, issue int) ([]byte, bool, error)
}

// maxGuidance bounds the notes one attempt carries into its prompts.
const maxGuidance = steer.MaxNotes

// absorbGuidance drains the issue's waiting guidance into the attempt. It
// runs at each stage boundary, so guidance sent while a stage works
// reaches the model at the next request of the next step. A failed read
// leaves the notes in Redis for the next boundary.
func (a *attempt) absorbGuidance(ctx context.Context, stage string) {
	if a.p.Steer == nil {
		return
	}
	notes, err := a.p.Steer.Drain(context.WithoutCancel(ctx), a.t.Repo, a.t.Issue)
	if err != nil {
		a.log.Warn("guidance not read", "stage", stage, "err", err)
		return
	}
	for _, n := range notes {
		text, err := steer.Clean(n.Text) // the router cleaned it; Redis is not trusted to have kept it so
		if err != nil {
			continue
		}
		a.guidance = append(a.guidance, outcome.Guidance{Author: n.Author, Text: text, Stage: stage})
		a.log.Info("guidance reached the run", "stage", stage, "author", n.Author, "bytes", len(text))
	}
	if extra := len(a.guidance) - maxGuidance; extra > 0 {
		a.guidance = a.guidance[extra:] // the newest win
	}
}

// guidanceBlock is the attempt's guidance as a model request carries it.
func (a *attempt) guidanceBlock() string {
	gs := make([]agent.Guidance, 0, len(a.guidance))
	for _, g := range a.guidance {
		gs = append(gs, agent.Guidance{Author: g.Author, Text: g.Text})
	}
	return agent.RenderGuidance(gs)
}

// Guidance is the attempt's guidance for the outcome record (and any
// transcript): the one place the pipeline keeps it.
func (a *attempt) guidanceRecord() []outcome.Guidance {
	out := make([]outcome.Guidance, 0, len(a.guidance))
	for _, g := range a.guidance {
		out = append(out, g.Brief())
	}
	return out
}
