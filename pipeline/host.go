// Package pipeline runs one attempt at an issue: Plan → Implement → Test ⟲ fix
// → Security → Review ⟲ round → Release → Archive, under a supervisor, in a
// worktree of its own, and reports every step through a Host: GitHub for the
// App, the terminal for `bot run`.
package pipeline

import (
	"context"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
)

// IssueInfo is the issue as the host sees it now (the webhook's copy may be stale).
type IssueInfo struct {
	Title, Body string
	Author      string // who opened the issue: they (and writers) can edit its text
	Open        bool
	Labels      []string
}

// ReleaseInput is what Release publishes.
type ReleaseInput struct {
	Title   string // commit and PR title
	Summary string // what changed, for the PR body
	Mode    string
	Files   []string
	// Owners are the code owners of Files (the default branch's
	// CODEOWNERS), asked to review when the PR needs an approval;
	// Labeller, the writer who labelled the issue, is asked when no
	// changed file has an owner.
	Owners   []string
	Labeller string
}

// ReleaseResult is what Release produced.
type ReleaseResult struct {
	PR      int
	URL     string
	HeadSHA string
	// Note is what the status comment says about the review request.
	Note string
}

// Subtask is one piece of a decomposed issue.
type Subtask struct {
	Title, Body string
	Depth       int // the sub-issue's depth in its decomposition tree
}

// Host is where an attempt reports and publishes.
type Host interface {
	Issue(ctx context.Context) (IssueInfo, error)
	PriorOutcomes(ctx context.Context) ([]outcome.Record, error)
	Status(ctx context.Context, s comments.Status) error
	Outcome(ctx context.Context, rec outcome.Record, d comments.Details) error
	State(ctx context.Context, state string) error
	Release(ctx context.Context, wt *workspace.Worktree, in ReleaseInput) (ReleaseResult, error)
	Decompose(ctx context.Context, subtasks []Subtask) ([]int, error)
}

// State labels (CONTRACT §4), without the prefix.
const (
	StateQueued     = "queued"
	StateRunning    = "running"
	StatePROpen     = "pr-open"
	StateCompleted  = "completed"
	StateDeferred   = "deferred"
	StateDecomposed = "decomposed"
	StateBlocked    = "blocked"
	StateRetrying   = "retrying"
	StateEscalated  = "escalated"
)

// States lists every state label, so a new one replaces whichever is set.
var States = []string{StateQueued, StateRunning, StatePROpen, StateCompleted, StateDeferred, StateDecomposed, StateBlocked, StateRetrying, StateEscalated, StateAwaitingApproval}

// finalState is the state label an outcome leaves on the issue.
func finalState(rec outcome.Record) string {
	switch rec.Outcome {
	case outcome.Completed:
		return StatePROpen
	case outcome.Deferred:
		return StateDeferred
	case outcome.Decomposed:
		return StateDecomposed
	case outcome.Blocked:
		return StateBlocked
	case outcome.Retryable:
		return StateRetrying
	}
	return StateEscalated
}
