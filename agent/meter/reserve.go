package meter

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/outcome"
)

// reserveScript adds ARGV[1] to the three totals only if none of them would
// pass its cap (ARGV[2..4], 0 = none): checking and adding in one step is
// what keeps parallel calls from all seeing room under a cap. It returns the
// index of the cap that refused, 0 when reserved, and that total.
var reserveScript = redis.NewScript(`
local usd = tonumber(ARGV[1])
for i = 1, 3 do
  local cap = tonumber(ARGV[i + 1])
  local cur = tonumber(redis.call('GET', KEYS[i]) or '0')
  if cap > 0 and cur + usd > cap then return {i, tostring(cur)} end
end
for i = 1, 3 do redis.call('INCRBYFLOAT', KEYS[i], ARGV[1]) end
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('EXPIRE', KEYS[3], ARGV[6])
return {0, '0'}
`)

// Reserve books usd — a call's maximum cost — against the scope before the
// call starts, or refuses it with a budget_exhausted error when any cap
// would be passed. Settle replaces the reservation with the real cost.
func (l *Ledger) Reserve(ctx context.Context, s Scope, usd float64) error {
	if usd < 0 {
		usd = 0
	}
	tk, rk, ik := l.keys(s)
	res, err := reserveScript.Run(ctx, l.RDB, []string{tk, rk, ik}, usd, s.TaskLimit, l.RepoDaily, l.InstallationDaily,
		int(taskTTL.Seconds()), int(dayTTL.Seconds())).Slice()
	if err != nil {
		return fmt.Errorf("reserve $%.6f for %s: %w", usd, s.Task(), err)
	}
	which, _ := res[0].(int64)
	if which == 0 {
		return nil
	}
	cur, _ := strconv.ParseFloat(fmt.Sprint(res[1]), 64)
	name, limit := []string{"", "the task's budget (budget_usd)", "the repository's daily model budget (WARDEN_BUDGET_REPO_DAILY_USD)",
		"the installation's daily model budget (WARDEN_BUDGET_INSTALLATION_DAILY_USD)"}[which], []float64{0, s.TaskLimit, l.RepoDaily, l.InstallationDaily}[which]
	return &outcome.Error{Class: outcome.BudgetExhausted,
		Msg: fmt.Sprintf("%s is spent: $%.4f spent or reserved, and this call may cost up to $%.4f of the $%.2f", name, cur, usd, limit)}
}

// Settle turns a reservation into the call's real cost: the difference is
// added (or given back) on all three totals.
func (l *Ledger) Settle(ctx context.Context, s Scope, reserved, actual float64) error {
	diff := actual - reserved
	if diff == 0 {
		return nil
	}
	tk, rk, ik := l.keys(s)
	pipe := l.RDB.TxPipeline()
	pipe.IncrByFloat(ctx, tk, diff)
	pipe.IncrByFloat(ctx, rk, diff)
	pipe.IncrByFloat(ctx, ik, diff)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("settle %s: $%.6f reserved, $%.6f spent: %w", s.Task(), reserved, actual, err)
	}
	if l.OnCharge != nil && actual > 0 {
		l.OnCharge(s, actual)
	}
	return nil
}
