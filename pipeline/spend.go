package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/observe/transcript"
)

// spend is the task's model spend over all its attempts (the ledger), and
// its budget_usd; without a ledger, this attempt's own usage.
func (a *attempt) spend(ctx context.Context) (spent, limit float64) {
	spent = a.usage().CostUSD
	if a.p.Spent != nil {
		if s, err := a.p.Spent(context.WithoutCancel(ctx), a.t); err == nil {
			spent = s
		} else {
			a.log.Warn("task spend not read", "err", err)
		}
	}
	return spent, a.cfg.BudgetUSD
}

// spend shows the task's spend against its limit on the checklist.
func (t *tracker) spend(spent, limit float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.s.Spend = fmt.Sprintf("$%.2f", spent)
	if limit > 0 {
		t.s.Spend += fmt.Sprintf(" of $%.2f", limit)
	}
}

// observeAgent routes an agent CLI's last steps to the checklist (under
// Implement, or Test while it fixes) and to `bot observe`.
func (a *attempt) observeAgent(ctx context.Context) {
	o, ok := a.session.(interface {
		Observe(func(stage, steps string))
	})
	if !ok {
		return
	}
	bg := context.WithoutCancel(ctx)
	o.Observe(func(stage, steps string) {
		name := StageImplement
		if stage == "fix" {
			name = StageTest
		}
		a.log.Debug("agent step", "stage", name, "steps", steps)
		if i := strings.LastIndex(steps, " → "); i >= 0 { // the newest of the last few
			a.tx.Addf(transcript.Model, "agent CLI (%s): %s", stage, steps[i+len(" → "):])
		} else {
			a.tx.Addf(transcript.Model, "agent CLI (%s): %s", stage, steps)
		}
		a.tr.stage(bg, name, "running", "agent: "+steps)
		if a.p.OnStep != nil {
			a.p.OnStep(a.t, name, steps)
		}
	})
}
