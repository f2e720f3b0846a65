package lifecycle

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
)

// One evaluation of a PR at a time. Events for one PR come in bursts (a
// check suite and each of its runs, a review and its comments), and each
// used to start an evaluation of its own: several ran side by side, each
// paging through CI and calling merge. Now an evaluation holds the PR's
// lease from the first read to the merge call; an event that finds the
// lease taken queues one evaluation for after it (coalesced: a later event
// joins the one already waiting), and the follow-up's push takes the same
// lease, so "busy" read under it stays true until the merge call.

// LeaseKey names a PR's lease in the run-lock space.
func LeaseKey(repo string, pr int) string { return "pr:" + jobs.IssueKey(repo, pr) }

// againDelay is how long after a lease holder an evaluation that found the
// PR busy runs: past the holder's merge call, short for a maintainer.
const againDelay = 3 * time.Second

// Lease takes the PR's lease and keeps it until release; it answers
// jobs.ErrLocked when another evaluation or push holds it.
func (l *Lifecycle) Lease(ctx context.Context, repo string, pr int) (release func(), err error) {
	if l.Locks == nil {
		return func() {}, nil
	}
	lk, err := l.Locks.Acquire(ctx, LeaseKey(repo, pr))
	if err != nil {
		return nil, err
	}
	kctx, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	go lk.Keep(kctx, stop)
	return func() { stop(nil); lk.Release(context.WithoutCancel(ctx)) }, nil
}

// leaseCtx is Lease for an evaluation: the context it answers ends when
// the lease is lost (another worker may hold the PR now), so nothing after
// that — the merge call least of all — runs without it.
func (l *Lifecycle) leaseCtx(ctx context.Context, repo string, pr int) (context.Context, func(), error) {
	if l.Locks == nil {
		return ctx, func() {}, nil
	}
	lk, err := l.Locks.Acquire(ctx, LeaseKey(repo, pr))
	if err != nil {
		return ctx, nil, err
	}
	ectx, lost := context.WithCancelCause(ctx)
	go lk.Keep(ectx, lost)
	return ectx, func() { lost(nil); lk.Release(context.WithoutCancel(ctx)) }, nil
}

// pushWait bounds how long a follow-up's push waits for an evaluation
// holding the PR's lease (an evaluation reads CI and merges in seconds).
const pushWait = 2 * time.Minute

// PushLease is the lease a follow-up holds around its push: it waits for
// an evaluation in progress instead of failing.
func (l *Lifecycle) PushLease(ctx context.Context, repo string, pr int) (release func(), err error) {
	if l.Locks == nil {
		return func() {}, nil
	}
	lk, err := l.Locks.Wait(ctx, LeaseKey(repo, pr), pushWait)
	if err != nil {
		return nil, err
	}
	kctx, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	go lk.Keep(kctx, stop)
	return func() { stop(nil); lk.Release(context.WithoutCancel(ctx)) }, nil
}

// leased runs one evaluation of PR n under its lease; a taken lease queues
// the evaluation for after the holder instead.
func (l *Lifecycle) leased(ctx context.Context, p jobs.PRPayload, n int, eval func(context.Context) error) error {
	ctx, release, err := l.leaseCtx(ctx, p.Repo, n)
	if errors.Is(err, jobs.ErrLocked) {
		l.Log.Info("PR evaluated or pushed by another worker; evaluating after it", "repo", p.Repo, "pr", n)
		q := p
		q.PR, q.SHA = n, ""
		return l.Queue.EnqueuePRAgain(ctx, q, againDelay)
	}
	if err != nil {
		return err
	}
	defer release()
	return eval(ctx)
}

// mergeGuard is read under the lease immediately before the merge call:
// feedback stored or a follow-up started since the evaluation began, or a
// hold, stops the merge. One merge call per head follows from the lease:
// the next evaluation re-reads the PR under it and finds it merged.
func (l *Lifecycle) mergeGuard(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) (bool, error) {
	if l.Followups == nil {
		return true, nil
	}
	if l.held(ctx, x, log) {
		return false, l.unbind(ctx, c, x, log)
	}
	full := x.owner + "/" + x.name
	busy, err := l.Followups.Busy(ctx, full, x.GetNumber())
	if err != nil || busy {
		log.Info("feedback arrived during the evaluation; not merging", "err", err)
		if err == nil {
			err = l.Followups.Skipped(ctx, full, x.GetNumber())
		}
		if err == nil { // GitHub's own merging must not go on behind it either
			err = l.unbind(ctx, c, x, log)
		}
		return false, err
	}
	return true, nil
}
