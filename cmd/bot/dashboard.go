package main

import (
	"context"

	"github.com/warden-bot/warden/agent/meter"
	"github.com/warden-bot/warden/agent/sessions"
	"github.com/warden-bot/warden/comments/dashboard"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/modes"
	"github.com/warden-bot/warden/pipeline"
)

// newBoard is the dashboards' keeper on the worker's Redis and queue.
func (a *app) newBoard(locks *jobs.Locks, memo *jobs.StatusMemo) *dashboard.Board {
	ledger := sessions.NewLedger(a.cfg, a.backend.RDB, nil)
	b := &dashboard.Board{RDB: a.backend.RDB, Queue: a.queue, Tasks: a.queue.Inspector(), History: jobs.NewHistory(a.backend.RDB),
		Memo: memo, Locks: locks, Prefix: a.cfg.LabelPrefix, Log: a.log,
		Spend: func(ctx context.Context, repo string, inst int64) (dashboard.Spend, error) {
			sp, err := ledger.Spent(ctx, meter.Scope{Repo: repo, Installation: inst})
			return dashboard.Spend{Day: ledger.Day(), Repo: sp.Repo, RepoCap: ledger.RepoDaily,
				Installation: sp.Installation, InstallationCap: ledger.InstallationDaily}, err
		}}
	if a.gh != nil {
		b.App = a.gh
	}
	return b
}

// onConfig tells the board what each run's .github/warden.yml says.
func onConfig(b *dashboard.Board) func(ctx context.Context, t pipeline.Task, cfg modes.Config) {
	return func(ctx context.Context, t pipeline.Task, cfg modes.Config) {
		b.Configured(ctx, t.Repo, t.Installation, cfg.Dashboard)
	}
}
