package meter

import (
	"context"

	"github.com/warden-bot/warden/agent"
)

// Provider charges the ledger for every call of the built-in llm agent and
// refuses calls once the scope's budget is spent.
type Provider struct {
	P     agent.Provider
	L     *Ledger
	Scope Scope
}

// Chat checks the caps, calls the model and charges what it cost (also for
// a failed call that reports usage).
func (m *Provider) Chat(ctx context.Context, req agent.ChatRequest) (agent.ChatResponse, error) {
	if err := m.L.Check(ctx, m.Scope); err != nil {
		return agent.ChatResponse{}, stage(err, req.Stage)
	}
	resp, err := m.P.Chat(ctx, req)
	if _, cerr := m.L.Charge(context.WithoutCancel(ctx), m.Scope, resp.Usage.CostUSD); cerr != nil && err == nil {
		return resp, cerr
	}
	return resp, err
}
