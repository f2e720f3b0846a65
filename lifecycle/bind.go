package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/jobs"
)

// Warden's own merge paths check the hold and the feedback just before
// the call (lease.go). The merge queue and native auto-merge merge later,
// on GitHub's side, without asking Warden again: a hold or a
// changes-requested review that comes after them takes them back.

// bindKey counts the PR's confirmed "queue" and "automerge" effects and
// their undoing (what + "-off"): they bind GitHub to merge while on > off.
func bindKey(x *pr, what string) string {
	return fmt.Sprintf("%s/%s#%d:bind:%d:%s", x.owner, x.name, x.issue, x.GetNumber(), what)
}

// Bound reports that Warden left PR n of repo (of issue) to GitHub's own
// merging: queued, or auto-merge on, and not taken back since.
func (l *Lifecycle) Bound(ctx context.Context, repo string, issue, n int) (bool, error) {
	owner, name, _ := strings.Cut(repo, "/")
	x := &pr{PullRequest: &github.PullRequest{Number: github.Int(n)}, owner: owner, name: name, issue: issue}
	for _, what := range []string{"queue", "automerge"} {
		if on, err := l.bound(ctx, x, what); err != nil || on {
			return on, err
		}
	}
	return false, nil
}

func (l *Lifecycle) bound(ctx context.Context, x *pr, what string) (bool, error) {
	on, err := l.Counter.Get(ctx, bindKey(x, what))
	if err != nil || on == 0 {
		return false, err
	}
	off, err := l.Counter.Get(ctx, bindKey(x, what+"-off"))
	return on > off, err
}

// unbind dequeues the PR and turns off the auto-merge Warden turned on. An
// error or an answer that does not show the effect fails the evaluation:
// it is retried, and the binding stays recorded until GitHub confirms.
func (l *Lifecycle) unbind(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) error {
	gh := effects.GitHub{C: c}
	if on, err := l.bound(ctx, x, "queue"); err != nil || !on {
		if err != nil {
			return err
		}
	} else if err := l.undo(ctx, x, "queue", func() (bool, error) { return true, gh.Dequeue(ctx, x.GetNodeID()) }, log); err != nil {
		return err
	}
	if on, err := l.bound(ctx, x, "automerge"); err != nil || !on {
		return err
	}
	return l.undo(ctx, x, "automerge", func() (bool, error) { return gh.DisableAutoMerge(ctx, x.GetNodeID()) }, log)
}

// undo takes back one binding through the journal.
func (l *Lifecycle) undo(ctx context.Context, x *pr, what string, act func() (bool, error), log *slog.Logger) error {
	intent, err := l.intend(ctx, x, what+"-off", "")
	if err != nil {
		return err
	}
	ok, err := act()
	if err != nil || !ok {
		log.Warn("GitHub may still merge the held PR by itself; asking again", "binding", what, "err", err)
		return fmt.Errorf("take back %s of PR %s/%s#%d: answer %v: %w", what, x.owner, x.name, x.GetNumber(), ok, errUnconfirmed(err))
	}
	log.Info("held PR taken back from GitHub's own merging", "binding", what)
	return l.takenBack(ctx, x, what, intent)
}

// takenBack records a take-back GitHub confirmed (its answer, or its state
// read later). Out of the queue, the head no longer counts as queued
// either: once nothing holds it back (feedback answered without a push),
// the next evaluation queues it again instead of sitting "already queued".
func (l *Lifecycle) takenBack(ctx context.Context, x *pr, what, intent string) error {
	if what == "queue" {
		return l.leftQueue(ctx, x) // queue.go: the head, the binding, the intent
	}
	on, err := l.bound(ctx, x, what)
	if err != nil {
		return err
	}
	if on {
		if _, err := l.Counter.Incr(ctx, bindKey(x, what+"-off")); err != nil {
			return err
		}
	}
	l.confirm(ctx, intent)
	return nil
}

func errUnconfirmed(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("GitHub's answer does not show it")
}

// intend records an effect's intent in the journal before its call; no
// journal (tests) records nothing. An intent that cannot be recorded
// stops the effect: a kill after the call would leave no trace to re-drive.
func (l *Lifecycle) intend(ctx context.Context, x *pr, kind, sha string) (string, error) {
	key := effectKey(x, kind, sha)
	if l.Effects == nil {
		return key, nil
	}
	return key, l.Effects.Begin(ctx, effects.Intent{Key: key, Kind: kind, Repo: x.owner + "/" + x.name, Installation: x.installation, PR: x.GetNumber(), SHA: sha})
}

// confirm records GitHub's confirmation of an intent.
func (l *Lifecycle) confirm(ctx context.Context, key string) {
	if l.Effects == nil {
		return
	}
	if err := l.Effects.Confirm(ctx, key); err != nil {
		l.Log.Warn("effect confirmed by GitHub but not recorded; the sweeper re-reads it", "effect", key, "err", err)
	}
}

// drop forgets an intent GitHub's answer settled without the effect.
func (l *Lifecycle) drop(ctx context.Context, key string) {
	if l.Effects == nil {
		return
	}
	if err := l.Effects.Drop(ctx, key); err != nil {
		l.Log.Warn("settled effect not dropped; the sweeper re-reads it", "effect", key, "err", err)
	}
}

// settleClosed ends the PR's intents at its head once it is closed: a
// merge GitHub did (its answer may have been lost) is confirmed, and what
// a closed PR no longer needs is dropped, so the sweeper stops re-driving.
func (l *Lifecycle) settleClosed(ctx context.Context, x *pr) {
	sha := x.GetHead().GetSHA()
	if x.GetMerged() {
		l.confirm(ctx, effectKey(x, "merge", sha))
	} else {
		l.drop(ctx, effectKey(x, "merge", sha))
	}
	for _, k := range []string{effectKey(x, "enqueue", sha), effectKey(x, "queue-off", ""), effectKey(x, "automerge-off", "")} {
		l.drop(ctx, k)
	}
}

// SweepEffects re-evaluates every PR with an effect unconfirmed for quiet
// or longer (a worker killed between the intent and the answer, an answer
// Warden could not read): the evaluation re-reads GitHub and acts again.
func (l *Lifecycle) SweepEffects(ctx context.Context, now time.Time, quiet time.Duration) (int, error) {
	if l.Effects == nil || l.Queue == nil {
		return 0, nil
	}
	return l.Effects.Sweep(ctx, now, quiet, l.redrive)
}

// redrive re-drives one unconfirmed intent by its kind.
func (l *Lifecycle) redrive(ctx context.Context, it effects.Intent) error {
	switch it.Kind {
	case effects.KindReviewers:
		// The intent names whom to ask: no CODEOWNERS to read again.
		_, _, err := effects.RequestReview(ctx, l.Effects, effects.GitHub{C: l.App.Client(it.Installation)}, it)
		return err
	case effects.KindReply:
		// The thread is read again first: a reply whose answer was lost is not posted twice.
		return effects.RedriveReply(ctx, l.Effects, effects.GitHub{C: l.App.Client(it.Installation)}, it)
	case effects.KindPush:
		// Confirmed when the branch is at the commit; otherwise dropped, as
		// the run or follow-up that pushed is retried by its own queue.
		return effects.RedrivePush(ctx, l.Effects, effects.GitHub{C: l.App.Client(it.Installation)}, it, l.Log)
	case effects.KindHandBack:
		return l.redriveHandBack(ctx, it) // handback.go
	}
	if moot, err := l.moot(ctx, it); err != nil || moot {
		return err
	}
	return l.Queue.EnqueuePR(ctx, jobs.PRPayload{Repo: it.Repo, Installation: it.Installation, PR: it.PR, Action: "checks"})
}

// moot drops an unconfirmed effect GitHub made moot, re-read from it: any
// binding, take-back or merge of a PR no longer open (a closed PR is
// neither queued nor auto-merged; a merged one confirms its merge), and an
// enqueue of a head the PR no longer has.
// No evaluation could confirm those (a closed PR is not evaluated, each
// enqueues the current head): the sweeper would re-drive them for as long
// as the journal keeps intents.
func (l *Lifecycle) moot(ctx context.Context, it effects.Intent) (bool, error) {
	owner, name, ok := strings.Cut(it.Repo, "/")
	if !ok || it.Kind != "enqueue" && it.Kind != "queue-off" && it.Kind != "automerge-off" && it.Kind != "merge" {
		return false, nil
	}
	p, _, err := l.App.Client(it.Installation).PullRequests.Get(ctx, owner, name, it.PR)
	if err != nil {
		return false, fmt.Errorf("read PR %s#%d for effect %s: %w", it.Repo, it.PR, it.Key, err)
	}
	if p.GetState() == "open" && (it.Kind != "enqueue" || p.GetHead().GetSHA() == it.SHA) {
		return false, nil
	}
	if it.Kind == "merge" && p.GetMerged() {
		return true, l.Effects.Confirm(ctx, it.Key) // its answer was lost; GitHub shows it done
	}
	return true, l.Effects.Drop(ctx, it.Key)
}

// SweepEvery runs SweepEffects every period until ctx ends.
func (l *Lifecycle) SweepEvery(ctx context.Context, period, quiet time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if n, err := l.SweepEffects(ctx, now, quiet); err != nil {
				l.Log.Warn("unconfirmed effects not swept", "err", err)
			} else if n > 0 {
				l.Log.Info("unconfirmed effects re-driven", "count", n)
			}
		}
	}
}

// effectKey is the idempotency key of effect kind on x at head sha.
func effectKey(x *pr, kind, sha string) string {
	return fmt.Sprintf("%s:%s/%s#%d:%s", kind, x.owner, x.name, x.GetNumber(), sha)
}
