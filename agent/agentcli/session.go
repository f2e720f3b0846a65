package agentcli

import (
	"context"
	"strings"
	"sync"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/agent/meter"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/supervisor"
)

// Session is one attempt with a CLI agent: the configured model plans and
// reviews (through the same ledger), the CLI implements and fixes in the
// worktree. Every event the CLI streams is progress for the stall watchdog.
type Session struct {
	Runner *Runner
	Model  *agent.Session // plan and review
	Tree   sandbox.Tree   // the worktree as Warden recorded it
	Scope  meter.Scope
	// TestCommand is named in the prompt so the CLI can run the tests; Warden
	// runs them again itself and trusts only its own run.
	TestCommand string

	mu      sync.Mutex
	usage   agent.Usage
	steps   []string
	observe func(stage, steps string)
}

// Observe sets who is told of the CLI's last steps (status comment, `bot observe`).
func (s *Session) Observe(fn func(stage, steps string)) { s.mu.Lock(); s.observe = fn; s.mu.Unlock() }

// EditsItself tells the pipeline that a reply without SEARCH/REPLACE
// blocks is normal: the CLI edited the files.
func (s *Session) EditsItself() bool { return true }

// Plan asks the configured model.
func (s *Session) Plan(ctx context.Context, in agent.PlanInput) (agent.Plan, error) {
	return s.Model.Plan(ctx, in)
}

// Review asks the configured model, as for the llm agent.
func (s *Session) Review(ctx context.Context, in agent.ReviewInput) (agent.Review, error) {
	return s.Model.Review(ctx, in)
}

// Usage is the model's and the CLI's spend in this session.
func (s *Session) Usage() agent.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage.Add(s.Model.Usage())
}

// Edit runs the CLI on Warden's prompt for implement or fix.
func (s *Session) Edit(ctx context.Context, stage, prompt string, apply func(string) ([]string, error)) ([]string, error) {
	res, err := s.Runner.Run(ctx, RunOptions{Tree: s.Tree, Prompt: TaskPrompt(s.Runner.Preset, prompt, s.TestCommand), Scope: s.Scope,
		OnEvent: func(step string) { s.event(ctx, stage, step) }})
	s.mu.Lock()
	s.usage = s.usage.Add(res.Usage)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return apply("")
}

// lastSteps is how many of the CLI's steps the status comment shows.
const lastSteps = 3

func (s *Session) event(ctx context.Context, stage, step string) {
	supervisor.Progress(ctx) // each event is progress: a silent CLI stalls
	if step == "" {
		return
	}
	// Paths inside the worktree read relative to it; long commands are cut.
	step = short(strings.ReplaceAll(step, strings.TrimSuffix(s.Tree.Dir, "/")+"/", ""))
	s.mu.Lock()
	s.steps = append(s.steps, step)
	if len(s.steps) > lastSteps {
		s.steps = s.steps[len(s.steps)-lastSteps:]
	}
	joined, fn := strings.Join(s.steps, " → "), s.observe
	s.mu.Unlock()
	if fn != nil {
		fn(stage, joined)
	}
}

// TaskPrompt is what the CLI is asked: Warden's implement or fix prompt
// (the issue as data, the limits and protected paths, the plan, earlier
// attempts, review feedback or failing test output), told to edit the files
// with its tools rather than answer with SEARCH/REPLACE blocks.
func TaskPrompt(p Preset, wardenPrompt, test string) string {
	var b strings.Builder
	b.WriteString("You are working as Warden's coding agent in this repository's worktree (the current directory). ")
	b.WriteString("Make the change below by editing files directly with your tools. Do not reply with SEARCH/REPLACE blocks: ")
	b.WriteString("wherever the text below asks for them, edit the files instead. Stay inside the limits and never touch protected paths. ")
	b.WriteString("You have no network and no credentials; do not commit, push or open pull requests: Warden reviews, tests and publishes the change itself.\n")
	if test != "" {
		b.WriteString("The repository's tests run with: `" + test + "`. Warden runs them again after you finish.\n")
	}
	b.WriteString("\n---\n\n")
	b.WriteString(wardenPrompt)
	return b.String()
}
