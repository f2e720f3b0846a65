package pipeline

import (
	"context"
	"fmt"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
)

// FollowupHost reports a follow-up attempt: progress on the sticky
// status comment, the outcome on the PR, and the change pushed as one more
// commit on the PR's branch (never a new branch or PR).
type FollowupHost struct {
	*GitHubHost
	PR      int
	Expect  string // the branch head the follow-up started from
	Note    string // what the follow-up answered, appended to its outcome comment
	Message string // the commit message
	Pushed  string // the commit pushed, once released
	// pushedLocal is the local commit Pushed was made from (they differ
	// when GitHub created the commit through its API).
	pushedLocal string
	// OnPush records the pushed commit right after the push, before
	// anything else can fail: a recovered follow-up answers instead of
	// committing again. May be nil.
	OnPush func(ctx context.Context, sha string) error
	// Lease holds the PR's lease around the push (no merge evaluation in
	// between); may be nil.
	Lease func(ctx context.Context) (release func(), err error)
}

// Release commits on top of the PR's head and pushes only if the branch is
// still where the follow-up found it: a human push meanwhile is never lost.
func (h *FollowupHost) Release(ctx context.Context, wt *workspace.Worktree, in ReleaseInput) (ReleaseResult, error) {
	email, err := h.CommitEmail(ctx)
	if err != nil {
		return ReleaseResult{}, err
	}
	msg := h.Message
	if msg == "" {
		msg = in.Title
	}
	sha, err := wt.Commit(ctx, msg, h.BotLogin, email)
	if err != nil {
		return ReleaseResult{}, fmt.Errorf("commit follow-up on %s: %w", wt.Branch, err)
	}
	if sha != h.Pushed && sha != h.pushedLocal { // a retried release after a lost answer pushes nothing new
		token, err := h.Token(ctx)
		if err != nil {
			return ReleaseResult{}, err
		}
		if err := h.push(ctx, wt, token, sha); err != nil {
			return ReleaseResult{}, err
		}
	}
	sha = h.Pushed
	// A new head: evolution goes back to pending until a writer approves it.
	if err := h.modeStatus(ctx, sha, in.Mode); err != nil {
		return ReleaseResult{}, err
	}
	return ReleaseResult{PR: h.PR, HeadSHA: sha}, nil
}

// push pushes sha onto the expected head under the PR's lease and records it.
func (h *FollowupHost) push(ctx context.Context, wt *workspace.Worktree, token, sha string) error {
	if h.Lease != nil {
		release, err := h.Lease(ctx)
		if err != nil {
			return fmt.Errorf("lease PR #%d for the push: %w", h.PR, err)
		}
		defer release()
	}
	pushed, err := h.publish(ctx, wt, token, h.Expect, sha, h.PR)
	if err != nil {
		return fmt.Errorf("push follow-up to %s (expected head %s): %w", wt.Branch, h.Expect, err)
	}
	h.Pushed, h.pushedLocal = pushed, sha
	if h.OnPush != nil {
		if err := h.OnPush(context.WithoutCancel(ctx), pushed); err != nil {
			return fmt.Errorf("record pushed follow-up %s: %w", pushed, err)
		}
	}
	return nil
}

// Outcome posts the follow-up's outcome on the PR. A success is a new
// comment without listing the PR's comments first; a failure repeats an
// earlier one with the same fingerprint instead of adding another.
func (h *FollowupHost) Outcome(ctx context.Context, rec outcome.Record, d comments.Details) error {
	body := comments.RenderOutcome(rec, d)
	if h.Note != "" { // after the first line, which names the outcome
		body += "\n\n" + h.Note
	}
	if rec.Outcome == outcome.Completed {
		return h.Poster.Reply(ctx, h.Owner, h.Name, h.PR, body)
	}
	return h.Poster.PostOutcome(ctx, h.Owner, h.Name, h.PR, rec, d)
}

// OutcomeOnce posts a completed follow-up's outcome unless one of Warden's
// comments on the PR holds mark already: a follow-up recovered after a
// kill cannot know whether the killed try posted it before dying.
func (h *FollowupHost) OutcomeOnce(ctx context.Context, rec outcome.Record, mark string) error {
	posted, err := h.Poster.HasOwn(ctx, h.Owner, h.Name, h.PR, mark)
	if err != nil || posted {
		return err
	}
	return h.Outcome(ctx, rec, comments.Details{})
}

// State leaves the label alone while a follow-up runs and when it
// succeeds (the PR stays open either way); other outcomes show as usual.
func (h *FollowupHost) State(ctx context.Context, state string) error {
	if state == StateRunning || state == StateCompleted || state == StatePROpen {
		return nil
	}
	return h.GitHubHost.State(ctx, state)
}
