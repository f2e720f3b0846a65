package pipeline

import (
	"context"
	"github.com/warden-bot/warden/observe/transcript"
	"log/slog"
	"time"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/environment/mirrors"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/modes"
	"github.com/warden-bot/warden/observe/metrics"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/sandbox/egress"
	"github.com/warden-bot/warden/supervisor"
)

// Task is one attempt's assignment.
type Task struct {
	ID            string // the queue's task id, for logs
	Delivery      string // the webhook delivery that queued it, for logs
	Repo          string // owner/name
	RepoID        int64  // GitHub's id of the repository; 0 when the payload had none
	Issue         int
	Mode          string
	Title, Body   string
	CloneURL      string
	DefaultBranch string
	Token         string // for fetching; empty for file:// remotes
	Installation  int64
	// Sender is the writer who labelled the issue (or asked for the run).
	Sender    string
	Attempt   int // 1-based, counted over the issue's outcome records
	Deferrals int
	Depth     int
	Final     bool      // no retry left: a Retryable outcome becomes Escalated
	Followup  *Followup // set: continue the open PR's branch with feedback
	// Resume set: the issue has an open Warden PR; the run continues its
	// branch from its head (Branch, HeadSHA) instead of the base.
	Resume *Resume
	// Triggered: the run stands for the trigger label (a label, a retry,
	// a deferral, an unblock); it stops as canceled when the label is gone.
	Triggered bool
	// Approved: a writer's `/warden approve` queued the run; it continues
	// with the plan kept for approval instead of asking for a new one.
	Approved bool
}

// hasTrigger reports a trigger label (<prefix>:maintenance or :evolution).
func hasTrigger(labels []string, prefix string) bool {
	for _, l := range labels {
		if l == prefix+":maintenance" || l == prefix+":evolution" {
			return true
		}
	}
	return false
}

// Resume is the open PR a new run of its issue continues (a retry, a
// relabel, an unblock, a deferral): never a force-push from the base over
// commits already on the PR.
type Resume struct {
	PR      int
	Branch  string
	HeadSHA string
}

// Result is how an attempt ended, with what the outcome comment showed.
type Result struct {
	Record   outcome.Record
	Details  comments.Details
	DeferFor time.Duration
	// Intervention is why a supervisor gave up (restart intensity
	// exceeded): the task is NEEDS_INTERVENTION until a maintainer resets it.
	Intervention string
}

// Session is the model side of one attempt (agent.Session, or the exec agent).
type Session interface {
	Plan(ctx context.Context, in agent.PlanInput) (agent.Plan, error)
	Edit(ctx context.Context, stage, prompt string, apply func(reply string) ([]string, error)) ([]string, error)
	Review(ctx context.Context, in agent.ReviewInput) (agent.Review, error)
	Usage() agent.Usage
}

// Pipeline holds what every attempt shares.
type Pipeline struct {
	Workspace *workspace.Manager
	// NewSession starts the model conversation for one attempt at repo,
	// working in dir.
	NewSession func(tree sandbox.Tree, repo string, budgetUSD float64) (Session, error)
	// NewTaskSession, when set, is used instead of NewSession: it knows the
	// task, so its model calls are charged to the task's spend ledger.
	NewTaskSession func(t Task, tree sandbox.Tree, budgetUSD float64) (Session, error)
	// Spent reads the task's spend across all its attempts; may be nil.
	Spent func(ctx context.Context, t Task) (float64, error)
	// OnStep is told of an agent CLI's last steps (`bot observe`); may be nil.
	OnStep func(t Task, stage, steps string)
	// OnEgress is told of every connection a sandbox of t asked the egress
	// proxy for (`bot observe`); it must not block. May be nil.
	OnEgress func(t Task, stage string, c egress.Conn)
	Prefix   string
	Log      *slog.Logger
	Metrics  *metrics.Metrics // may be nil
	// Counter persists fingerprint counts across attempts (Redis); may be nil.
	Counter counter
	// Spawn queues the task of a sub-issue created by decomposition; may be nil.
	Spawn func(ctx context.Context, parent Task, issue int) error
	// Tree counts the tasks in t's decomposition tree; may be nil.
	Tree func(ctx context.Context, t Task) (int, error)
	// OnConfig is told what the repository's .github/warden.yml says each
	// time an attempt reads it (the dashboard); may be nil.
	OnConfig func(ctx context.Context, t Task, cfg modes.Config)
	// OnOutcome is told of every attempt's outcome (history); may be nil.
	// OnTranscript keeps an attempt's redacted transcript for the operator
	// page and returns where it shows it; may be nil.
	OnTranscript func(ctx context.Context, t Task, text string) (path string)
	OnOutcome    func(ctx context.Context, t Task, rec outcome.Record)
	// OnEvent is told of every supervisor event of every attempt (logs,
	// metrics, `bot observe`); it must not block. May be nil.
	OnEvent func(t Task, e supervisor.Event)
	// OnIntervention is told of a task entering NEEDS_INTERVENTION; may be nil.
	OnIntervention func(ctx context.Context, t Task, reason string)
	// OnTerminal is told of every attempt that ended for good (systemic detector).
	OnTerminal func(ctx context.Context, t Task, rec outcome.Record)
	// DefaultImage is WARDEN_DEFAULT_IMAGE: the image of repositories that
	// name none (CONTRACT §12).
	DefaultImage string
	// Images pulls and unpacks repositories' images (sandbox/image.Store);
	// nil runs every command on the worker's own system.
	Images Images
	// Mirrors are the operator's package mirrors (WARDEN_PIP_INDEX_URL,
	// WARDEN_NPM_REGISTRY, WARDEN_GOPROXY) setup and tests receive.
	Mirrors mirrors.Mirrors
	// Steer keeps writers' guidance and plans awaiting approval (steer.go,
	// approval.go); nil: no guidance reaches runs and plan_approval fails closed.
	Steer Steering
}

type counter interface {
	Incr(ctx context.Context, key string) (int64, error)
}

// Attempt runs one attempt at t, reporting through host, and returns its result.
func (p *Pipeline) Attempt(ctx context.Context, host Host, t Task) Result {
	log := p.Log.With("task", t.ID, "delivery", t.Delivery, "repo", t.Repo, "issue", t.Issue, "attempt", t.Attempt, "mode", t.Mode)
	a := &attempt{p: p, host: host, t: t, log: log, tr: newTracker(host, log, t.Mode, t.Attempt), tx: transcript.New()}
	a.env = a.newEnv()
	res := a.run(ctx)
	a.report(context.WithoutCancel(ctx), &res)
	return res
}
