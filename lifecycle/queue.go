package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/github/branchrules"
)

// enqueue puts a PR whose rules require a merge queue into it, once per
// head: the queue merges it (a pull_request closed event settles the issue)
// or removes it (reported like a red CI run, see dequeued). The head counts
// as queued only once GitHub answered with its queue entry: a refusal, an
// error, an answer without an entry or a kill before the answer leaves it
// unqueued, and the next evaluation asks again (GitHub answers an enqueue
// of a PR already in the queue with its entry).
func (l *Lifecycle) enqueue(ctx context.Context, c *github.Client, x *pr, rules branchrules.Rules, log *slog.Logger) error {
	sha := x.GetHead().GetSHA()
	in, err := l.inQueue(ctx, x)
	if err != nil {
		return err
	}
	if in {
		log.Info("already in the merge queue", "sha", sha)
		return nil
	}
	if on, err := l.autoMergeOn(ctx, c, x, log); err != nil || on {
		return err // GitHub enters it by itself (confirmed on, not taken back)
	}
	gh := effects.GitHub{C: c}
	intent, err := l.intend(ctx, x, "enqueue", sha)
	if err != nil {
		return err
	}
	e, err := gh.Enqueue(ctx, x.GetNodeID(), sha)
	if err != nil && allowsAutoMerge(ctx, c, x) {
		// Native auto-merge enters the queue by itself once GitHub sees every
		// requirement met, including the ones Warden cannot read.
		log.Info("enqueue refused; enabling auto-merge instead", "err", err)
		if on, aerr := gh.EnableAutoMerge(ctx, x.GetNodeID(), sha); aerr == nil && on {
			if _, cerr := l.Counter.Incr(ctx, bindKey(x, "automerge")); cerr != nil {
				return cerr
			}
			l.confirm(ctx, intent)
			return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d has auto-merge enabled: GitHub adds it to the merge queue once the branch's rules are met (the merge queue said: %s).", x.GetNumber(), err))
		}
	}
	if err != nil {
		log.Warn("merge queue refused the PR", "err", err)
		return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged yet: the merge queue did not accept it: %s.", x.GetNumber(), strings.TrimSuffix(err.Error(), ".")))
	}
	if e.State == "" {
		// Not an answer Warden can read as "queued": asked again next time.
		log.Warn("merge queue answered without an entry; not counted as queued", "sha", sha)
		return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged yet: the merge queue's answer did not show it queued; Warden asks again.", x.GetNumber()))
	}
	if _, err := l.Counter.Incr(ctx, queuedKey(x, "queued")); err != nil {
		return err
	}
	if _, err := l.Counter.Incr(ctx, bindKey(x, "queue")); err != nil {
		return err
	}
	l.confirm(ctx, intent)
	log.Info("PR enqueued", "sha", sha, "position", e.Position, "state", e.State)
	return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is in the merge queue (position %d): the branch's rules require it; the queue merges it once its checks pass.", x.GetNumber(), e.Position))
}

// autoMergeOn: Warden turned auto-merge on and has nothing more to do for
// this head. GitHub shows it on: it enters the queue by itself. GitHub
// shows it off (a maintainer turned it off; GitHub does on a push by
// someone without write access): the binding is counted off, and the head
// is left to a maintainer, said once on the issue. Turning it on again
// would undo a person's choice; waiting silently leaves a green PR unsaid.
// A new head is judged anew.
func (l *Lifecycle) autoMergeOn(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) (bool, error) {
	if n, err := l.Counter.Get(ctx, queuedKey(x, "automerge-gone")); err != nil || n > 0 {
		return true, err
	}
	on, err := l.bound(ctx, x, "automerge")
	if err != nil || !on || x.GetAutoMerge() != nil {
		return on, err
	}
	log.Info("the auto-merge Warden turned on was turned off on GitHub; leaving this head to a maintainer")
	if err := l.takenBack(ctx, x, "automerge", effectKey(x, "automerge-off", "")); err != nil {
		return true, err
	}
	if _, err := l.Counter.Incr(ctx, queuedKey(x, "automerge-gone")); err != nil {
		return true, err
	}
	return true, l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is left to a maintainer: the auto-merge Warden turned on was turned off on GitHub, and Warden does not turn it on again for this head. Merging it, or a new push, moves it on.", x.GetNumber()))
}

// dequeued reports a PR the merge queue removed without merging it like a
// red CI run: said on the issue once per head, with a fix attempt (evaluate
// recorded the removal itself first: leftQueue).
func (l *Lifecycle) dequeued(ctx context.Context, c *github.Client, x *pr, reason string, log *slog.Logger) error {
	if x.GetState() != "open" || x.GetMerged() {
		return nil
	}
	why := "it was removed from the merge queue"
	if reason != "" {
		why += " (" + reason + ")"
	}
	if err := l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged: %s.", x.GetNumber(), why)); err != nil {
		log.Warn("merge note not written", "err", err)
	}
	return l.checksFailed(ctx, c, x, why, log)
}

// queuedKey counts the confirmed enqueues ("queued") or the removals
// ("dequeued") of x's head: it is in the queue while it has more of the first.
func queuedKey(x *pr, what string) string {
	return fmt.Sprintf("%s/%s#%d:%s:%s", x.owner, x.name, x.issue, what, x.GetHead().GetSHA())
}

// inQueue: GitHub confirmed an enqueue of x's head and has not removed it since.
func (l *Lifecycle) inQueue(ctx context.Context, x *pr) (bool, error) {
	q, err := l.Counter.Get(ctx, queuedKey(x, "queued"))
	if err != nil {
		return false, err
	}
	d, err := l.Counter.Get(ctx, queuedKey(x, "dequeued"))
	return q > d, err
}

// leftQueue records that the queue removed x: its head, so a later
// evaluation of it (a retry) enqueues it again, and the PR's binding to the
// queue whatever head it was queued at (a push removes it too), so a hold
// has nothing left to take back.
func (l *Lifecycle) leftQueue(ctx context.Context, x *pr) error {
	in, err := l.inQueue(ctx, x)
	if err != nil {
		return err
	}
	if in {
		if _, err = l.Counter.Incr(ctx, queuedKey(x, "dequeued")); err != nil {
			return err
		}
	}
	if on, err := l.bound(ctx, x, "queue"); err != nil || !on {
		return err
	}
	if _, err = l.Counter.Incr(ctx, bindKey(x, "queue-off")); err != nil {
		return err
	}
	// GitHub's removal is what a take-back under a hold wanted: its intent
	// (left pending when the dequeue call met a PR already out) is done.
	l.confirm(ctx, effectKey(x, "queue-off", ""))
	return nil
}
