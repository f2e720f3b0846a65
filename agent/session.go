package agent

import (
	"context"
	"log/slog"
	"sync"

	"github.com/warden-bot/warden/outcome"
)

// SessionOptions bound one attempt's model use.
type SessionOptions struct {
	BudgetUSD float64
	MaxTokens int
	Logger    *slog.Logger
	Repo      string
}

// Session is the model side of one attempt: it keeps a conversation per
// stage (so a resumed stage can continue it), enforces the budget before
// every call, and sums usage.
type Session struct {
	p    Provider
	opts SessionOptions

	mu    sync.Mutex
	usage Usage
	convo map[string][]Message
}

// NewSession starts a session on provider p.
func NewSession(p Provider, opts SessionOptions) *Session {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Session{p: p, opts: opts, convo: map[string][]Message{}}
}

// Usage is the session's total so far.
func (s *Session) Usage() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// ResetConversation forgets a stage's conversation (a clean restart).
func (s *Session) ResetConversation(stage string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.convo, stage)
}

// ask sends prompt as the next user turn of stage's conversation.
func (s *Session) ask(ctx context.Context, stage, prompt string) (string, error) {
	s.mu.Lock()
	if s.opts.BudgetUSD > 0 && s.usage.CostUSD >= s.opts.BudgetUSD {
		spent := s.usage.CostUSD
		s.mu.Unlock()
		return "", &outcome.Error{Class: outcome.BudgetExhausted, Stage: stage, Msg: budgetMsg(spent, s.opts.BudgetUSD)}
	}
	msgs := s.convo[stage]
	if len(msgs) == 0 {
		msgs = []Message{{Role: "system", Content: RenderSystem(s.opts.Repo)}}
	}
	msgs = append(msgs, Message{Role: "user", Content: prompt})
	s.mu.Unlock()

	resp, err := s.p.Chat(ctx, ChatRequest{Messages: msgs, MaxTokens: s.opts.MaxTokens, Stage: stage})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usage = s.usage.Add(resp.Usage)
	if err != nil {
		return "", err
	}
	s.convo[stage] = append(msgs, Message{Role: "assistant", Content: resp.Text})
	s.opts.Logger.Debug("model call", "stage", stage, "input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens, "cost_usd", resp.Usage.CostUSD)
	return resp.Text, nil
}

// Plan asks for a plan; a reply that does not parse gets exactly one repair
// call quoting the parse error.
func (s *Session) Plan(ctx context.Context, in PlanInput) (Plan, error) {
	prompt, err := RenderPlan(in)
	if err != nil {
		return Plan{}, err
	}
	s.ResetConversation("plan")
	text, err := s.ask(ctx, "plan", prompt)
	if err != nil {
		return Plan{}, err
	}
	plan, perr := ParsePlan(text)
	if perr == nil {
		return plan, nil
	}
	text, err = s.ask(ctx, "plan", "Your reply could not be parsed: "+perr.Error()+"\nReply with only the JSON object.")
	if err != nil {
		return Plan{}, err
	}
	return ParsePlan(text)
}

// Edit asks for SEARCH/REPLACE blocks (stage implement or fix) and hands the
// reply to apply. The stage's conversation goes on, so feedback turns see it.
func (s *Session) Edit(ctx context.Context, stage, prompt string, apply func(reply string) ([]string, error)) ([]string, error) {
	text, err := s.ask(ctx, stage, prompt)
	if err != nil {
		return nil, err
	}
	return apply(text)
}

// Review asks for a verdict on the diff; one repair call if it does not parse.
func (s *Session) Review(ctx context.Context, in ReviewInput) (Review, error) {
	prompt, err := RenderReview(in)
	if err != nil {
		return Review{}, err
	}
	s.ResetConversation("review")
	text, err := s.ask(ctx, "review", prompt)
	if err != nil {
		return Review{}, err
	}
	r, perr := ParseReview(text)
	if perr == nil {
		return r, nil
	}
	if text, err = s.ask(ctx, "review", "Your reply could not be parsed: "+perr.Error()+"\nReply with only the JSON object."); err != nil {
		return Review{}, err
	}
	return ParseReview(text)
}

func budgetMsg(spent, budget float64) string {
	return "the budget is spent: $" + ftoa(spent) + " of $" + ftoa(budget)
}
