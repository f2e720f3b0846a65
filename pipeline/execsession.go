package pipeline

import (
	"context"

	"github.com/warden-bot/warden/agent"
)

// ExecSession drives an external agent command (WARDEN_AGENT=exec): it gets
// each prompt on stdin with WARDEN_STAGE set, edits the worktree itself or
// prints SEARCH/REPLACE blocks. The guards judge the worktree either way.
// It has no review stage: goal_status stays empty.
type ExecSession struct {
	ex  *agent.ExecAgent
	dir string
}

// NewExecSession runs ex in dir.
func NewExecSession(ex *agent.ExecAgent, dir string) *ExecSession {
	return &ExecSession{ex: ex, dir: dir}
}

// Plan renders the plan prompt and parses the command's stdout as the plan reply.
func (s *ExecSession) Plan(ctx context.Context, in agent.PlanInput) (agent.Plan, error) {
	prompt, err := agent.RenderPlan(in)
	if err != nil {
		return agent.Plan{}, err
	}
	out, err := s.ex.Run(ctx, "plan", s.dir, prompt)
	if err != nil {
		return agent.Plan{}, err
	}
	return agent.ParsePlan(out)
}

// Edit runs the command for implement or fix and applies any blocks it printed.
func (s *ExecSession) Edit(ctx context.Context, stage, prompt string, apply func(string) ([]string, error)) ([]string, error) {
	out, err := s.ex.Run(ctx, stage, s.dir, prompt)
	if err != nil {
		return nil, err
	}
	return apply(out)
}

// Review is skipped for exec agents.
func (s *ExecSession) Review(context.Context, agent.ReviewInput) (agent.Review, error) {
	return agent.Review{}, nil
}

// Usage is unknown for an external command.
func (s *ExecSession) Usage() agent.Usage { return agent.Usage{} }
