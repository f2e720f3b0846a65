// Package meter is Warden's model spend ledger and the metering proxy that
// agent CLIs talk to. Spend is kept in Redis per task (across every attempt,
// retry, deferral and follow-up), per repository per UTC day and per
// installation per UTC day, so a cap holds however the work is split up.
package meter

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/outcome"
)

// Scope names what one model call is charged to. TaskLimit is the task's
// budget_usd (0: no cap).
type Scope struct {
	Repo         string
	Issue        int
	Installation int64
	TaskLimit    float64
}

// Task is the scope's task id as it appears in keys and messages.
func (s Scope) Task() string { return fmt.Sprintf("%s#%d", s.Repo, s.Issue) }

// Ledger is the spend ledger. RepoDaily and InstallationDaily are the
// operator's caps per UTC day (WARDEN_BUDGET_REPO_DAILY_USD,
// WARDEN_BUDGET_INSTALLATION_DAILY_USD); 0 means no cap.
type Ledger struct {
	RDB               redis.UniversalClient
	RepoDaily         float64
	InstallationDaily float64
	// OnCharge is told of every charge (the spend metric); may be nil.
	OnCharge func(s Scope, usd float64)
	Now      func() time.Time
}

// taskTTL keeps a task's spend long after its last attempt, so a retry
// weeks later still sees what the task cost.
const (
	taskTTL = 90 * 24 * time.Hour
	dayTTL  = 48 * time.Hour
)

func (l *Ledger) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Ledger) keys(s Scope) (task, repo, inst string) {
	day := l.now().UTC().Format("2006-01-02")
	return "warden:spend:task:" + s.Task(),
		"warden:spend:repo:" + s.Repo + ":" + day,
		"warden:spend:installation:" + strconv.FormatInt(s.Installation, 10) + ":" + day
}

// Spend is what a scope has spent, against its caps.
type Spend struct {
	Task, Repo, Installation float64
}

// Spent reads the scope's three totals.
func (l *Ledger) Spent(ctx context.Context, s Scope) (Spend, error) {
	tk, rk, ik := l.keys(s)
	vals, err := l.RDB.MGet(ctx, tk, rk, ik).Result()
	if err != nil {
		return Spend{}, fmt.Errorf("read spend of %s: %w", s.Task(), err)
	}
	f := func(v any) float64 {
		str, _ := v.(string)
		x, _ := strconv.ParseFloat(str, 64)
		return x
	}
	return Spend{Task: f(vals[0]), Repo: f(vals[1]), Installation: f(vals[2])}, nil
}

// Check refuses a call once any cap of the scope is reached: a
// budget_exhausted error saying which cap and what was spent.
func (l *Ledger) Check(ctx context.Context, s Scope) error {
	sp, err := l.Spent(ctx, s)
	if err != nil {
		return err
	}
	return l.exhausted(s, sp)
}

func (l *Ledger) exhausted(s Scope, sp Spend) error {
	var msg string
	switch {
	case s.TaskLimit > 0 && sp.Task >= s.TaskLimit:
		msg = fmt.Sprintf("the task's budget is spent: $%.4f of $%.2f (budget_usd)", sp.Task, s.TaskLimit)
	case l.RepoDaily > 0 && sp.Repo >= l.RepoDaily:
		msg = fmt.Sprintf("the repository's daily model budget is spent: $%.4f of $%.2f (WARDEN_BUDGET_REPO_DAILY_USD)", sp.Repo, l.RepoDaily)
	case l.InstallationDaily > 0 && sp.Installation >= l.InstallationDaily:
		msg = fmt.Sprintf("the installation's daily model budget is spent: $%.4f of $%.2f (WARDEN_BUDGET_INSTALLATION_DAILY_USD)", sp.Installation, l.InstallationDaily)
	default:
		return nil
	}
	return &outcome.Error{Class: outcome.BudgetExhausted, Msg: msg}
}

// Charge adds usd to the scope's three totals and returns them.
func (l *Ledger) Charge(ctx context.Context, s Scope, usd float64) (Spend, error) {
	if usd <= 0 {
		return l.Spent(ctx, s)
	}
	tk, rk, ik := l.keys(s)
	pipe := l.RDB.TxPipeline()
	t := pipe.IncrByFloat(ctx, tk, usd)
	r := pipe.IncrByFloat(ctx, rk, usd)
	i := pipe.IncrByFloat(ctx, ik, usd)
	pipe.Expire(ctx, tk, taskTTL)
	pipe.Expire(ctx, rk, dayTTL)
	pipe.Expire(ctx, ik, dayTTL)
	if _, err := pipe.Exec(ctx); err != nil {
		return Spend{}, fmt.Errorf("charge %s $%.6f: %w", s.Task(), usd, err)
	}
	if l.OnCharge != nil {
		l.OnCharge(s, usd)
	}
	return Spend{Task: t.Val(), Repo: r.Val(), Installation: i.Val()}, nil
}
