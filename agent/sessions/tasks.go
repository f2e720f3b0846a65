package sessions

import (
	"context"
	"log/slog"
	"net/url"
	"strconv"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/agent/agentcli"
	"github.com/warden-bot/warden/agent/meter"
	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/observe/metrics"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/sandbox"
)

// TaskFactory is pipeline.Pipeline.NewTaskSession: a session charged to the
// task's ledger, whatever attempt it is.
type TaskFactory = func(t pipeline.Task, tree sandbox.Tree, budget float64) (pipeline.Session, error)

// NewLedger is the spend ledger on rdb with the operator's daily caps;
// every charge feeds warden_model_spend_usd_total.
func NewLedger(cfg *config.Config, rdb redis.UniversalClient, m *metrics.Metrics) *meter.Ledger {
	repo, inst := cfg.DailyCaps()
	l := &meter.Ledger{RDB: rdb, RepoDaily: repo, InstallationDaily: inst}
	if m != nil {
		l.OnCharge = func(s meter.Scope, usd float64) {
			m.Spend.WithLabelValues(strconv.FormatInt(s.Installation, 10), s.Repo).Add(usd)
		}
	}
	return l
}

// Tasks builds each attempt's model side charged to the task's
// ledger: the llm agent through a metered provider, a CLI agent through
// the metering proxy (and the same provider for plan and review).
func Tasks(cfg *config.Config, log *slog.Logger, l *meter.Ledger) (TaskFactory, error) {
	prov, prices, err := provider(cfg)
	if err != nil {
		return nil, err
	}
	runner, err := cliRunner(cfg, log, l, prices)
	if err != nil {
		return nil, err
	}
	return func(t pipeline.Task, tree sandbox.Tree, budget float64) (pipeline.Session, error) {
		scope := meter.Scope{Repo: t.Repo, Issue: t.Issue, Installation: t.Installation, TaskLimit: budget}
		model := agent.NewSession(&meter.Provider{P: prov, L: l, Scope: scope},
			agent.SessionOptions{BudgetUSD: budget, MaxTokens: cfg.LLMMaxTokens, Repo: t.Repo, Logger: log})
		if runner == nil {
			return model, nil
		}
		return &agentcli.Session{Runner: runner, Model: model, Tree: tree, Scope: scope}, nil
	}, nil
}

// cliRunner checks the configured CLI (present, the pinned version) once,
// at start; nil for the llm agent.
func cliRunner(cfg *config.Config, log *slog.Logger, l *meter.Ledger, prices map[string]agent.Price) (*agentcli.Runner, error) {
	preset, ok := agentcli.Presets[cfg.Agent]
	if !ok {
		return nil, nil
	}
	bin, warning, err := agentcli.Resolve(preset, cfg.AgentBin)
	if err != nil {
		return nil, &config.Error{Setting: "WARDEN_AGENT_BIN", Msg: err.Error()}
	}
	if warning != "" {
		log.Warn("agent CLI newer than the pinned version", "agent", preset.Name, "bin", bin, "warning", warning)
	}
	base := cfg.LLMBaseURL
	if base == "" {
		base = map[string]string{"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com/v1"}[preset.API]
	}
	up, err := url.Parse(base)
	if err != nil {
		return nil, &config.Error{Setting: "WARDEN_LLM_BASE_URL", Msg: err.Error()}
	}
	log.Info("agent CLI ready", "agent", preset.Name, "bin", bin, "version", preset.Version, "endpoint", up.Host)
	return &agentcli.Runner{Preset: preset, Bin: bin, Upstream: up, APIKey: cfg.LLMAPIKey, Ledger: l, Prices: prices,
		Model: cfg.LLMModel, Log: log}, nil
}

// LocalTasks gives `bot run` an agent CLI, charged to an in-process
// ledger (nothing outlives the run); nil for the other agents.
func LocalTasks(cfg *config.Config, log *slog.Logger) (TaskFactory, error) {
	if _, ok := agentcli.Presets[cfg.Agent]; !ok {
		return nil, nil
	}
	mr := miniredis.NewMiniRedis()
	if err := mr.Start(); err != nil {
		return nil, err
	}
	return Tasks(cfg, log, NewLedger(cfg, redis.NewClient(&redis.Options{Addr: mr.Addr()}), nil))
}

// ExecTasks gives the exec agent the task's budget: refused once spent,
// charged what the command reports; its wall time is bounded by the agent
// timeout either way.
func ExecTasks(cfg *config.Config, l *meter.Ledger) TaskFactory {
	ex := execAgent(cfg)
	return func(t pipeline.Task, tree sandbox.Tree, budget float64) (pipeline.Session, error) {
		s := pipeline.NewExecSession(ex, tree)
		s.Meter = &scopeMeter{l: l, s: meter.Scope{Repo: t.Repo, Issue: t.Issue, Installation: t.Installation, TaskLimit: budget}}
		return s, nil
	}
}

// scopeMeter is the ledger bound to one task's scope.
type scopeMeter struct {
	l *meter.Ledger
	s meter.Scope
}

func (m *scopeMeter) Check(ctx context.Context) error { return m.l.Check(ctx, m.s) }

func (m *scopeMeter) Charge(ctx context.Context, usd float64) { _, _ = m.l.Charge(ctx, m.s, usd) }

// CheckCLI checks, before anything starts, that a worker configured
// with a CLI agent has that CLI at the pinned version or a newer release of
// the same major version; for a newer one it returns the warning the
// process logs and shows on /ui.
func CheckCLI(cfg *config.Config) (warning string, err error) {
	p, ok := agentcli.Presets[cfg.Agent]
	if !ok || cfg.Role == "web" {
		return "", nil
	}
	_, warning, err = agentcli.Resolve(p, cfg.AgentBin)
	if err != nil {
		return "", &config.Error{Setting: "WARDEN_AGENT_BIN", Msg: err.Error()}
	}
	return warning, nil
}

// TaskSpent is pipeline.Pipeline.Spent: what the task has spent so far,
// all attempts, for its outcome record.
func TaskSpent(l *meter.Ledger) func(ctx context.Context, t pipeline.Task) (float64, error) {
	return func(ctx context.Context, t pipeline.Task) (float64, error) {
		sp, err := l.Spent(ctx, meter.Scope{Repo: t.Repo, Issue: t.Issue, Installation: t.Installation})
		return sp.Task, err
	}
}

// execAgent is the operator's agent command, sandboxed with network through
// the egress proxy (public addresses only): the operator chose the command
// and it usually has to reach its own model. What the sandbox still guarantees is that no Warden secret is
// readable and only the worktree (and a private HOME) is writable.
func execAgent(cfg *config.Config) *agent.ExecAgent {
	ex := agent.NewExec(cfg.AgentCommand)
	ex.Network = sandbox.Egress
	return ex
}
