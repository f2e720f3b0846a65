package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/github/branchrules"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/lifecycle"
	"github.com/warden-bot/warden/observe"
	"github.com/warden-bot/warden/runner"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/sandbox/egress"
	"github.com/warden-bot/warden/supervisor"
	"github.com/warden-bot/warden/supervisor/systemic"
)

// startWorker starts the asynq server with Warden's handlers.
func (a *app) startWorker(ctx context.Context) (*jobs.Server, error) {
	if a.gh == nil {
		a.log.Warn("worker without a GitHub App: queued tasks wait until credentials are configured")
	}
	ws, err := workspace.New(filepath.Clean(a.cfg.DataDir), workspace.Options{Logger: a.log, Park: min(a.cfg.MaxPerRepo, a.cfg.Concurrency)})
	if err != nil {
		return nil, fmt.Errorf("data dir %s: %w", a.cfg.DataDir, err)
	}
	if _, err := ws.Sweep(ctx); err != nil {
		a.log.Warn("sweeping stale worktrees failed", "err", err)
	}
	p, err := a.newPipeline(ws)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	redactor := comments.NewRedactor(a.cfg.Secrets()...)
	sink := observe.NewSink(ctx, a.log, a.metrics, jobs.NewPublisher(a.backend.RDB, host), redactor)
	p.OnEvent, p.OnStep, p.OnEgress = sink.Supervisor, sink.AgentStep, sink.Egress
	sandbox.SetEgressAllow(egress.SplitAllow(a.cfg.EgressAllow))
	sys := &systemic.Filer{Detector: &supervisor.Systemic{Log: jobs.NewFailureLog(a.backend.RDB)}, Queue: a.queue,
		Paused: jobs.NewPausedIssues(a.backend.RDB), Event: sink.Supervisor, Dir: filepath.Join(a.cfg.DataDir, "diagnostics"),
		Prefix: a.cfg.LabelPrefix, Log: a.log}
	hosts := &runner.Hosts{Prefix: a.cfg.LabelPrefix, Redactor: redactor, GitHubURL: a.cfg.GitHubURL}
	if a.gh != nil {
		sys.Client, hosts.App = a.gh.Client, a.gh
	}
	p.OnTerminal = sys.OnTerminal
	go sys.RetryPending(ctx, 10*time.Second)
	locks, ids := jobs.NewLocks(a.backend.RDB, jobs.RunLockTTL), jobs.NewStatusIDs(a.backend.RDB)
	memo := jobs.NewStatusMemo(a.backend.RDB)
	hosts.Memo = memo
	fu := &followup.Runner{Store: followup.NewStore(a.backend.RDB), Attempt: p.Attempt, Next: a.queue.EnqueueNext, Reevaluate: a.queue.EnqueuePR, Prefix: a.cfg.LabelPrefix, Log: a.log}
	life := &lifecycle.Lifecycle{App: a.gh, Queue: a.queue, Links: jobs.NewLinks(a.backend.RDB), Counter: jobs.NewCounter(a.backend.RDB),
		Prefix: a.cfg.LabelPrefix, Redactor: redactor, Log: a.log, MaxCheckFixes: 2, Followups: fu.Store, Locks: locks,
		Rules: &branchrules.Reader{}, Memo: memo, Effects: effects.New(a.backend.RDB)}
	hosts.Effects = life.Effects // one journal: the lifecycle makes the review requests runs propose
	fu.Lease = life.PushLease
	fu.Bound = life.Bound
	go life.SweepEvery(ctx, time.Minute, 10*time.Minute) // effects a killed worker left unconfirmed
	w := &jobs.Worker{
		Pipeline: &runner.Runner{Hosts: hosts, Pipeline: p, Locks: locks, Log: a.log, Followups: fu, IDs: ids},
		Status:   &runner.StatusPoster{Hosts: hosts, Locks: locks, Queue: a.queue, IDs: ids, Log: a.log},
		Flags:    jobs.NewFlags(a.backend.RDB), Locks: locks, Queue: a.queue, Log: a.log, Gate: jobs.NewGate(a.backend.RDB, a.cfg.MaxPerRepo),
		Lifecycle: life,
	}
	board := a.newBoard(locks, memo)
	w.Dashboard, p.OnConfig = board, onConfig(board)
	mux := w.Mux()
	mux.Use(board.Middleware)
	srv := jobs.NewServer(a.backend, jobs.ServerOptions{Concurrency: a.cfg.Concurrency, ShutdownTimeout: a.cfg.ShutdownTimeout, Log: a.log})
	if err := srv.Start(mux); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	a.log.Info("worker started", "concurrency", a.cfg.Concurrency, "worker", host, "isolation", workspace.Isolation())
	workspace.WarnIsolation(a.log)
	workspace.WarnToolchains(a.log, a.cfg.DefaultImage)
	return srv, nil
}
