package main

import (
	"github.com/warden-bot/warden/environment/mirrors"
	"path/filepath"

	"github.com/warden-bot/warden/agent/sessions"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/followup/steer"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/runner"
	"github.com/warden-bot/warden/sandbox/image"
)

func (a *app) newPipeline(ws *workspace.Manager) (*pipeline.Pipeline, error) {
	// Every attempt of the worker is charged to the task's ledger, so only
	// NewTaskSession is set (NewSession serves `bot run`).
	ledger := sessions.NewLedger(a.cfg, a.backend.RDB, a.metrics)
	newTask, err := sessions.Tasks(a.cfg, a.log, ledger)
	if err != nil {
		return nil, err
	}
	registries, err := image.SplitRegistries(a.cfg.Registries)
	if err != nil {
		return nil, err
	}
	if a.cfg.Agent == "exec" {
		newTask = sessions.ExecTasks(a.cfg, ledger)
	}
	h := &runner.Hooks{History: jobs.NewHistory(a.backend.RDB), Links: jobs.NewLinks(a.backend.RDB),
		Interventions: jobs.NewInterventions(a.backend.RDB), Queue: a.queue, Log: a.log, CIGrace: a.cfg.CIGrace,
		Transcripts: jobs.NewTranscripts(a.backend.RDB)}
	return &pipeline.Pipeline{
		Workspace: ws, NewTaskSession: newTask, Spent: sessions.TaskSpent(ledger), Prefix: a.cfg.LabelPrefix, Log: a.log, Metrics: a.metrics,
		Counter: jobs.NewCounter(a.backend.RDB), Spawn: h.Spawn, OnOutcome: h.OnOutcome, OnTranscript: h.OnTranscript, Tree: h.Tree, OnIntervention: h.OnIntervention,
		DefaultImage: a.cfg.DefaultImage, Images: &image.Store{Dir: filepath.Join(a.cfg.DataDir, "images"), Registries: registries, Log: a.log},
		Steer:   steer.NewStore(a.backend.RDB),
		Mirrors: mirrors.Mirrors{PipIndex: a.cfg.PipIndexURL, NPMRegistry: a.cfg.NPMRegistry, GoProxy: a.cfg.GoProxy},
	}, nil
}
