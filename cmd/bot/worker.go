package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/lifecycle"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/workspace"
)

// startWorker starts the asynq server with Warden's handlers.
func (a *app) startWorker(ctx context.Context, errc chan<- error) (*asynq.Server, error) {
	if a.gh == nil {
		a.log.Warn("worker without a GitHub App: queued tasks wait until credentials are configured")
	}
	ws, err := workspace.New(filepath.Clean(a.cfg.DataDir), workspace.Options{Logger: a.log})
	if err != nil {
		return nil, fmt.Errorf("data dir %s: %w", a.cfg.DataDir, err)
	}
	if _, err := ws.Sweep(ctx); err != nil {
		a.log.Warn("sweeping stale worktrees failed", "err", err)
	}
	host, _ := os.Hostname()
	p, err := a.newPipeline(ws)
	if err != nil {
		return nil, err
	}
	sink := newEventSink(ctx, a.log, a.metrics, jobs.NewPublisher(a.backend.RDB, host), comments.NewRedactor(a.cfg.Secrets()...))
	p.OnEvent, p.OnStep = sink.supervisor, sink.agentStep
	sys := newSystemic(a, sink)
	p.OnTerminal = sys.onTerminal
	needs := jobs.NewInterventions(a.backend.RDB)
	p.OnIntervention = func(ctx context.Context, t pipeline.Task, reason string) {
		v := jobs.Intervention{Repo: t.Repo, Issue: t.Issue, Installation: t.Installation, Mode: t.Mode, Reason: reason}
		if err := needs.Mark(ctx, v); err != nil {
			a.log.Error("task not marked as needing intervention", "task", jobs.IssueKey(t.Repo, t.Issue), "err", err)
		}
	}
	go sys.retryPending(ctx, 10*time.Second)
	locks := jobs.NewLocks(a.backend.RDB, jobs.RunLockTTL)
	w := &jobs.Worker{
		Pipeline: &githubRunner{a: a, p: p, locks: locks, redactor: comments.NewRedactor(a.cfg.Secrets()...)},
		Flags:    jobs.NewFlags(a.backend.RDB),
		Locks:    locks,
		Queue:    a.queue,
		Log:      a.log,
	}
	w.Lifecycle = &lifecycle.Lifecycle{App: a.gh, Queue: a.queue, Links: jobs.NewLinks(a.backend.RDB), Counter: jobs.NewCounter(a.backend.RDB),
		Prefix: a.cfg.LabelPrefix, Redactor: comments.NewRedactor(a.cfg.Secrets()...), Log: a.log, MaxCheckFixes: 2}
	w.Status = &statusPoster{a: a, locks: w.Locks, redactor: comments.NewRedactor(a.cfg.Secrets()...)}
	srv := jobs.NewServer(a.backend, jobs.ServerOptions{Concurrency: a.cfg.Concurrency, ShutdownTimeout: a.cfg.ShutdownTimeout, Log: a.log})
	if err := srv.Start(w.Mux()); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	a.log.Info("worker started", "concurrency", a.cfg.Concurrency, "worker", host, "isolation", workspace.Isolation())
	workspace.WarnIsolation(a.log)
	return srv, nil
}

// githubRunner runs pipeline attempts for asynq tasks, reporting on GitHub.
type githubRunner struct {
	a        *app
	p        *pipeline.Pipeline
	locks    *jobs.Locks // nil outside the worker
	redactor *comments.Redactor
}

func (r *githubRunner) Run(ctx context.Context, p jobs.RunPayload, at jobs.Attempt) jobs.Result {
	host, err := r.host(ctx, p.Repo, p.Installation, p.Issue, p.CloneURL, p.DefaultBranch)
	if err != nil {
		r.a.log.Warn("cannot reach GitHub for task; will retry", "repo", p.Repo, "issue", p.Issue, "err", err)
		return jobs.Result{Record: retryable(err)}
	}
	token, err := r.a.gh.Token(ctx, p.Installation)
	if err != nil {
		return jobs.Result{Record: retryable(err)}
	}
	id, _ := asynq.GetTaskID(ctx)
	t := pipeline.Task{
		ID: id, Delivery: p.Delivery, Repo: p.Repo, Issue: p.Issue, Mode: p.Mode, Title: p.Title, Body: p.Body,
		CloneURL: p.CloneURL, DefaultBranch: p.DefaultBranch, Token: token, Installation: p.Installation,
		Deferrals: p.Deferrals, Depth: p.Depth, Final: at.Final,
	}
	host.Poster.Remember = true // the attempt is the only writer of its Warden comments
	host.StatusLock = statusLock(r.locks, r.a.log, p.Repo, p.Issue)
	res := r.p.Attempt(ctx, host, t)
	return jobs.Result{Record: res.Record, DeferFor: res.DeferFor}
}

// host builds the GitHub host for one issue.
func (r *githubRunner) host(ctx context.Context, repo string, inst int64, issue int, cloneURL, base string) (*pipeline.GitHubHost, error) {
	if r.a.gh == nil {
		return nil, fmt.Errorf("no GitHub App configured")
	}
	owner, name, _ := strings.Cut(repo, "/")
	login, err := r.a.gh.BotLogin(ctx)
	if err != nil {
		return nil, err
	}
	client := r.a.gh.Client(inst)
	return &pipeline.GitHubHost{
		Client: client, Owner: owner, Name: name, Number: issue, Prefix: r.a.cfg.LabelPrefix,
		BotLogin: login, CloneURL: cloneURL, Base: base,
		Poster: &comments.Poster{Client: client.Issues, BotLogin: login, Redactor: r.redactor},
		Token:  func(ctx context.Context) (string, error) { return r.a.gh.Token(ctx, inst) },
	}, nil
}
