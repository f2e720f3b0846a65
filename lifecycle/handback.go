package lifecycle

import (
	"context"
	"fmt"

	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/jobs"
)

// redriveHandBack queues the work a released hold still owes: the
// delivery of the writer's `/warden retry` lifted the hold but died or
// failed (a 503 from the queue) before queueing it, and GitHub does not
// redeliver a failed webhook by itself. The work is the follow-up when
// feedback waits, else the PR's evaluation; then the debt is cleared and
// the intent confirmed (HandedBack). Nothing owed: the intent is settled
// (the hold still in place: the release never happened).
func (l *Lifecycle) redriveHandBack(ctx context.Context, it effects.Intent) error {
	if l.Followups == nil {
		return nil
	}
	owed, err := l.Followups.HandBackOwed(ctx, it.Repo, it.PR)
	if err != nil {
		return err
	}
	if !owed {
		return l.Followups.SettleHandBack(ctx, it.Repo, it.PR)
	}
	if err := l.queueHandBack(ctx, it); err != nil {
		return fmt.Errorf("queue the hand-back of %s#%d: %w", it.Repo, it.PR, err)
	}
	l.Log.Info("owed hand-back queued by the effects sweep", "repo", it.Repo, "pr", it.PR)
	return l.Followups.HandedBack(ctx, it.Repo, it.PR)
}

// queueHandBack queues the follow-up of waiting feedback (from what the
// PR says of its repository, as the evaluation does), else an evaluation.
func (l *Lifecycle) queueHandBack(ctx context.Context, it effects.Intent) error {
	eval := jobs.PRPayload{Repo: it.Repo, Installation: it.Installation, PR: it.PR, Action: "checks"}
	n, err := l.Followups.Pending(ctx, it.Repo, it.PR)
	if err != nil || n == 0 {
		if err != nil {
			return err
		}
		return l.Queue.EnqueuePR(ctx, eval)
	}
	x, err := l.wardenPR(ctx, l.App.Client(it.Installation), it.Repo, it.PR)
	if err != nil {
		return err
	}
	if x == nil || x.GetBase().GetRepo().GetCloneURL() == "" {
		return l.Queue.EnqueuePR(ctx, eval) // its evaluation queues the follow-up when it can
	}
	x.installation = it.Installation
	return l.ensureFollowup(ctx, x)
}
