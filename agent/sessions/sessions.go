// Package sessions builds the model side of an attempt from the settings:
// the exec agent or an LLM provider with its prices.
package sessions

import (
	"log/slog"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/sandbox"
)

// Factory is pipeline.Pipeline.NewSession: a session for the worktree tree
// of repo, spending at most budget dollars.
type Factory = func(tree sandbox.Tree, repo string, budget float64) (pipeline.Session, error)

// New builds the session factory the configuration names.
func New(cfg *config.Config, log *slog.Logger) (Factory, error) {
	if cfg.Agent == "exec" {
		ex := execAgent(cfg)
		return func(tree sandbox.Tree, _ string, _ float64) (pipeline.Session, error) {
			return pipeline.NewExecSession(ex, tree), nil
		}, nil
	}
	prov, _, err := provider(cfg)
	if err != nil {
		return nil, err
	}
	return func(_ sandbox.Tree, repo string, budget float64) (pipeline.Session, error) {
		return agent.NewSession(prov, agent.SessionOptions{BudgetUSD: budget, MaxTokens: cfg.LLMMaxTokens, Repo: repo, Logger: log}), nil
	}, nil
}

// provider is the configured model with its prices. Every request passes
// the redactor: test output a command printed may hold a secret.
func provider(cfg *config.Config) (agent.Provider, map[string]agent.Price, error) {
	ac := agent.Config{API: cfg.LLMAPI, BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel}
	if in, out, err := cfg.Price(); err == nil && (in > 0 || out > 0) {
		ac.Prices = map[string]agent.Price{cfg.LLMModel: {Input: in, Output: out}}
	}
	prov, err := agent.New(ac)
	if err != nil {
		return nil, nil, &config.Error{Setting: "WARDEN_LLM_API", Msg: err.Error()}
	}
	return agent.Redacting(prov, comments.NewRedactor(cfg.Secrets()...).Redact), ac.Prices, nil
}
