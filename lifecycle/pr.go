package lifecycle

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/pipeline"
)

// PR re-evaluates the Warden PRs a payload points at.
func (l *Lifecycle) PR(ctx context.Context, p jobs.PRPayload) error {
	c := l.App.Client(p.Installation)
	if p.Action == "rules" && l.Rules != nil {
		l.Rules.Invalidate(p.Repo) // the rules changed: read them again
	}
	nums, err := l.prsFor(ctx, c, p)
	if err != nil {
		return err
	}
	for _, n := range nums {
		// Under the PR's lease from the first read: one evaluation at a time.
		if err := l.leased(ctx, p, n, func(ctx context.Context) error { return l.evaluateOne(ctx, c, p, n) }); err != nil {
			return err
		}
	}
	return nil
}

// evaluateOne re-reads PR n and evaluates it when it is Warden's.
func (l *Lifecycle) evaluateOne(ctx context.Context, c *github.Client, p jobs.PRPayload, n int) error {
	x, err := l.wardenPR(ctx, c, p.Repo, n)
	if err != nil || x == nil {
		return err
	}
	x.installation = p.Installation
	if stale(p, x) {
		l.Log.Info("check event for an old head; ignored", "repo", p.Repo, "pr", n, "sha", p.SHA, "head", x.GetHead().GetSHA())
		return nil
	}
	if p.Action == "released" && l.ciReported(ctx, x) {
		l.Log.Info("CI reported on the released head already; its look is not needed", "repo", p.Repo, "pr", n, "head", x.GetHead().GetSHA())
		return nil
	}
	if err := l.evaluate(ctx, c, x, p); err != nil {
		return fmt.Errorf("evaluate %s#%d: %w", p.Repo, n, err)
	}
	if p.Action == "checks" {
		l.sawCI(ctx, x)
	}
	return nil
}

// The released PR's look (released.go) is there to say "no CI" when no
// check event ever comes. Once a completed check of the head has been
// evaluated, CI exists: that evaluation said its verdict on the issue,
// and the head's next check event evaluates it again, so the look would
// read the same config and CI for nothing. (Check events evaluate after
// jobs.CoalesceDelay, so one landing between the PR's creation and the
// run's final status write, which drops a note, is not expected.) ciKey
// marks that evaluation, per head.
func ciKey(x *pr) string {
	return fmt.Sprintf("%s/%s#%d:ci-seen:%s", x.owner, x.name, x.GetNumber(), x.GetHead().GetSHA())
}

// sawCI records that a check event's evaluation of x's head ran.
func (l *Lifecycle) sawCI(ctx context.Context, x *pr) {
	if _, err := l.Counter.Incr(ctx, ciKey(x)); err != nil {
		l.Log.Warn("evaluated check event not recorded", "err", err)
	}
}

// ciReported: a check event's evaluation of x's head ran. An error says
// no, so the look runs as before.
func (l *Lifecycle) ciReported(ctx context.Context, x *pr) bool {
	n, err := l.Counter.Get(ctx, ciKey(x))
	return err == nil && n > 0
}

// stale reports a check or status event about a head the PR has left: only
// the current head's CI may merge it.
func stale(p jobs.PRPayload, x *pr) bool {
	return (p.Action == "checks" || p.Action == "status" || p.Action == "dequeued" || p.Action == "retry") && p.SHA != "" && p.SHA != x.GetHead().GetSHA()
}

func (l *Lifecycle) evaluate(ctx context.Context, c *github.Client, x *pr, p jobs.PRPayload) error {
	log := l.Log.With("repo", p.Repo, "pr", x.GetNumber(), "issue", x.issue, "mode", x.mode, "action", p.Action)
	if p.Action == "status" && x.mode == "evolution" {
		// Only Warden sets warden/mode; a value from anyone else is overwritten.
		log.Warn("warden/mode set by someone else; overwriting", "sender", p.Sender, "audit", true)
	}
	if x.GetState() == "closed" {
		return l.closed(ctx, c, x, log)
	}
	if p.Action == "dequeued" && !x.GetMerged() {
		// GitHub's removal is a fact whatever Warden does next: recorded
		// first, a hold's take-back finds nothing bound (a dequeue call
		// would meet "not in the merge queue" and fail every retry).
		if err := l.leftQueue(ctx, x); err != nil {
			return err
		}
	}
	if err := l.settleTakeBacks(ctx, c, x, log); err != nil { // takeback.go
		return err
	}
	stop, err := l.branchWork(ctx, c, x, log)
	if err != nil {
		return err
	}
	if x.mode == "evolution" {
		return l.approval(ctx, c, x, log)
	}
	if stop {
		return nil
	}
	if p.Action == "dequeued" {
		return l.dequeued(ctx, c, x, p.Reason, log)
	}
	// A maintenance PR carries warden/mode success; anyone else's value is overwritten.
	if p.Action == "status" || p.Action == "sync" {
		if err := l.setStatus(ctx, c, x, "success", "maintenance guards passed"); err != nil {
			return err
		}
	}
	return l.maybeMerge(ctx, c, x, log)
}

func (l *Lifecycle) setStatus(ctx context.Context, c *github.Client, x *pr, state, desc string) error {
	_, _, err := c.Repositories.CreateStatus(ctx, x.owner, x.name, x.GetHead().GetSHA(), &github.RepoStatus{
		State: github.String(state), Context: github.String(pipeline.ModeContext), Description: github.String(desc),
	})
	if err != nil {
		return fmt.Errorf("set %s=%s on %s: %w", pipeline.ModeContext, state, x.GetHead().GetSHA(), err)
	}
	return nil
}

// closed settles the issue of a closed PR: merged is completed (GitHub closes
// the issue through "Fixes #n"); closed without merge needs a human.
func (l *Lifecycle) closed(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) error {
	l.settleClosed(ctx, x)
	h, err := l.issueHost(ctx, c, x)
	if err != nil {
		return err
	}
	if l.Followups != nil { // the PR's feedback, hold and in-flight record end with it
		if err := l.Followups.Forget(ctx, x.owner+"/"+x.name, x.GetNumber()); err != nil {
			return err
		}
	}
	if x.GetMerged() {
		log.Info("PR merged; issue completed")
		return h.State(ctx, pipeline.StateCompleted)
	}
	log.Info("PR closed without merge; issue escalated")
	if err := h.Poster.Reply(ctx, x.owner, x.name, x.issue, fmt.Sprintf("PR #%d was closed without being merged, so Warden stopped here. Comment `/%s retry` to try again.", x.GetNumber(), l.Prefix)); err != nil {
		return err
	}
	return h.State(ctx, pipeline.StateEscalated)
}
