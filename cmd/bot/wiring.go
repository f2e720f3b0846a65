package main

import (
	"context"
	"log/slog"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/lifecycle"
	"github.com/warden-bot/warden/meter"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/workspace"
)

// sessionFactory builds the model side of an attempt from the configuration.
func sessionFactory(cfg *config.Config, log *slog.Logger) (func(dir, repo string, budget float64) (pipeline.Session, error), error) {
	if cfg.Agent == "exec" {
		ex := agent.NewExec(cfg.AgentCommand, nil)
		return func(dir, _ string, _ float64) (pipeline.Session, error) {
			return pipeline.NewExecSession(ex, dir), nil
		}, nil
	}
	ac := agent.Config{API: cfg.LLMAPI, BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel}
	if in, out, err := cfg.Price(); err == nil && (in > 0 || out > 0) {
		ac.Prices = map[string]agent.Price{cfg.LLMModel: {Input: in, Output: out}}
	}
	prov, err := agent.New(ac)
	if err != nil {
		return nil, &config.Error{Setting: "WARDEN_LLM_API", Msg: err.Error()}
	}
	prov = agent.Redacting(prov, comments.NewRedactor(cfg.Secrets()...).Redact) // test output a command printed may hold a secret
	return func(_, repo string, budget float64) (pipeline.Session, error) {
		return agent.NewSession(prov, agent.SessionOptions{BudgetUSD: budget, MaxTokens: cfg.LLMMaxTokens, Repo: repo, Logger: log}), nil
	}, nil
}

func (a *app) newPipeline(ws *workspace.Manager) (*pipeline.Pipeline, error) {
	newSession, err := sessionFactory(a.cfg, a.log)
	if err != nil {
		return nil, err
	}
	ledger := newLedger(a.cfg, a.backend.RDB, a.metrics)
	newTask, err := taskSessions(a.cfg, a.log, ledger)
	if err != nil {
		return nil, err
	}
	if a.cfg.Agent == "exec" {
		newTask = execSessions(a.cfg, ledger)
	}
	history := jobs.NewHistory(a.backend.RDB)
	links := jobs.NewLinks(a.backend.RDB)
	return &pipeline.Pipeline{
		Workspace:      ws,
		NewSession:     newSession,
		NewTaskSession: newTask,
		Spent: func(ctx context.Context, t pipeline.Task) (float64, error) {
			sp, err := ledger.Spent(ctx, meter.Scope{Repo: t.Repo, Issue: t.Issue, Installation: t.Installation})
			return sp.Task, err
		},
		Prefix:  a.cfg.LabelPrefix,
		Log:     a.log,
		Metrics: a.metrics,
		Counter: jobs.NewCounter(a.backend.RDB),
		Spawn:   a.spawnChild,
		OnOutcome: func(ctx context.Context, t pipeline.Task, rec outcome.Record) {
			if err := history.Append(ctx, t.Repo, t.Issue, rec); err != nil {
				a.log.Warn("history not recorded", "err", err)
			}
			if rec.Outcome != outcome.Blocked {
				return
			}
			if blocker := lifecycle.IssueRef(t.Repo, rec.Obstacle.Task); blocker > 0 && blocker != t.Issue {
				if err := links.BlockOn(ctx, t.Repo, blocker, t.Issue); err != nil {
					a.log.Warn("blocker not recorded", "err", err)
				}
			}
		},
		Tree: func(ctx context.Context, t pipeline.Task) (int, error) { return links.TreeSize(ctx, t.Repo, t.Issue) },
	}, nil
}

// spawnChild queues a sub-issue's task directly: the labeled webhook for it
// comes from Warden itself and is ignored, and the TaskID dedupes anyway.
func (a *app) spawnChild(ctx context.Context, parent pipeline.Task, issue int) error {
	if err := jobs.NewLinks(a.backend.RDB).AddChild(ctx, parent.Repo, parent.Issue, issue); err != nil {
		return err
	}
	_, err := a.queue.EnqueueRun(ctx, jobs.RunPayload{
		Repo: parent.Repo, Issue: issue, Mode: parent.Mode, CloneURL: parent.CloneURL,
		DefaultBranch: parent.DefaultBranch, Reason: jobs.ReasonChild, Depth: parent.Depth + 1, Parent: parent.Issue,
		Installation: parent.Installation,
	})
	return err
}
