package pipeline

import (
	"context"
	"sync"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/sandbox"
)

// ExecSession drives an external agent command (WARDEN_AGENT=exec): it gets
// each prompt on stdin with WARDEN_STAGE set, edits the worktree itself or
// prints SEARCH/REPLACE blocks. The guards judge the worktree either way.
// It has no review stage: goal_status stays empty.
type ExecSession struct {
	ex   *agent.ExecAgent
	tree sandbox.Tree
	// Meter, when set, refuses a run once the task's budget is spent and
	// is charged what the command reports it cost (a JSON line with
	// total_cost_usd or cost_usd); an agent that reports nothing is bounded
	// by its wall time (the agent timeout).
	Meter ExecMeter

	mu    sync.Mutex
	usage agent.Usage
}

// ExecMeter is the task's spend ledger as the exec agent sees it.
type ExecMeter interface {
	Check(ctx context.Context) error
	Charge(ctx context.Context, usd float64)
}

// NewExecSession runs ex in the worktree tree.
func NewExecSession(ex *agent.ExecAgent, tree sandbox.Tree) *ExecSession {
	return &ExecSession{ex: ex, tree: tree}
}

func (s *ExecSession) run(ctx context.Context, stage, prompt string) (string, error) {
	if s.Meter != nil {
		if err := s.Meter.Check(ctx); err != nil {
			return "", err
		}
	}
	out, err := s.ex.Run(ctx, stage, s.tree, prompt)
	if usd := agent.ReportedCost(out); usd > 0 {
		s.mu.Lock()
		s.usage.CostUSD += usd
		s.mu.Unlock()
		if s.Meter != nil {
			s.Meter.Charge(context.WithoutCancel(ctx), usd)
		}
	}
	return out, err
}

// Plan renders the plan prompt and parses the command's stdout as the plan reply.
func (s *ExecSession) Plan(ctx context.Context, in agent.PlanInput) (agent.Plan, error) {
	prompt, err := agent.RenderPlan(in)
	if err != nil {
		return agent.Plan{}, err
	}
	out, err := s.run(ctx, "plan", prompt)
	if err != nil {
		return agent.Plan{}, err
	}
	return agent.ParsePlan(out)
}

// Edit runs the command for implement or fix and applies any blocks it printed.
func (s *ExecSession) Edit(ctx context.Context, stage, prompt string, apply func(string) ([]string, error)) ([]string, error) {
	out, err := s.run(ctx, stage, prompt)
	if err != nil {
		return nil, err
	}
	return apply(out)
}

// Review is skipped for exec agents.
func (s *ExecSession) Review(context.Context, agent.ReviewInput) (agent.Review, error) {
	return agent.Review{}, nil
}

// Usage is what the command reported it cost (zero when it reports nothing).
func (s *ExecSession) Usage() agent.Usage { s.mu.Lock(); defer s.mu.Unlock(); return s.usage }
