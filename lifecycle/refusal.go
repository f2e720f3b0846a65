package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/github/branchrules"
	"github.com/warden-bot/warden/jobs"
)

// maxRetries bounds the re-evaluations Warden schedules for one head after
// refusals that pass by themselves; past it, the next event decides.
const maxRetries = 5

// merge calls GitHub's merge with the method the rules allow and reads a
// refusal: another method when that one is refused, the merge queue when
// it is required, a later look when the refusal passes by itself, and
// otherwise GitHub's words on the issue until an event changes something.
func (l *Lifecycle) merge(ctx context.Context, c *github.Client, x *pr, rules branchrules.Rules, configured string, log *slog.Logger) error {
	for method := rules.Method(configured); method != ""; method = rules.Method(configured) {
		intent, err := l.intend(ctx, x, "merge", x.GetHead().GetSHA())
		if err != nil {
			return err
		}
		res, _, err := effects.GitHub{C: c}.Merge(ctx, x.owner, x.name, x.GetNumber(), method, x.GetHead().GetSHA())
		if err == nil && res.GetMerged() {
			l.confirm(ctx, intent)
			return l.merged(ctx, c, x, method, log)
		}
		ref, ok := branchrules.ParseRefusal(err)
		if !ok { // no answer, or one that does not say merged: re-read, never taken as done
			return fmt.Errorf("merge %s/%s#%d: %w", x.owner, x.name, x.GetNumber(), errUnconfirmed(err))
		}
		l.drop(ctx, intent) // GitHub said no: nothing happened
		log.Info("GitHub refused the merge", "status", ref.Status, "message", ref.Message, "method", method)
		switch ref.Kind {
		case branchrules.MethodRefused:
			// The repository's settings are learned here, not read up front:
			// remember the refused method for the repository's next PRs, and
			// try the next one this answer leaves.
			refused := branchrules.MethodOf(ref.Message)
			if refused == "" {
				refused = method
			}
			l.refusedMethod(x, refused)
			rules.RepoMethods = branchrules.Without(rules.RepoMethods, refused)
			continue
		case branchrules.QueueRequired:
			l.forgetRules(x)
			rules.MergeQueue = true
			return l.enqueue(ctx, c, x, rules, log)
		case branchrules.HeadMoved:
			return nil // the push's own event evaluates the new head
		case branchrules.Transient:
			later, err := l.retryLater(ctx, x, "merge-retries", ref.RetryAfter, log)
			if err != nil {
				return err
			}
			next := " Warden looks again shortly."
			if !later {
				next = " GitHub still refuses after several tries; Warden tries again when the PR, its reviews or its checks change."
			}
			return l.refusalNote(ctx, c, x, ref, next)
		default:
			return l.refusalNote(ctx, c, x, ref, " Warden tries again when the PR, its reviews or its checks change.")
		}
	}
	return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged: GitHub refused every merge method Warden may use here (merge_method %q in .github/warden.yml; the repository's settings and rules decide the rest).", x.GetNumber(), configured))
}

func (l *Lifecycle) refusalNote(ctx context.Context, c *github.Client, x *pr, ref branchrules.Refusal, next string) error {
	return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged yet: GitHub refused the merge (%d): %q.%s", x.GetNumber(), ref.Status, ref.Message, next))
}

// retryLater schedules one more evaluation of x's head after d (doubling per
// attempt), at most maxRetries per head and kind of wait (what names its
// counter); false when none was scheduled.
func (l *Lifecycle) retryLater(ctx context.Context, x *pr, what string, d time.Duration, log *slog.Logger) (bool, error) {
	if l.Queue == nil {
		return false, nil
	}
	sha := x.GetHead().GetSHA()
	n, err := l.Counter.Incr(ctx, fmt.Sprintf("%s/%s#%d:%s:%s", x.owner, x.name, x.issue, what, sha))
	if err != nil || n > maxRetries {
		return false, err
	}
	d <<= n - 1
	log.Info("not merged for now; evaluating again later", "wait", what, "in", d, "attempt", n)
	p := jobs.PRPayload{Repo: x.owner + "/" + x.name, Installation: x.installation, PR: x.GetNumber(), SHA: sha, Action: "retry"}
	if err := l.Queue.EnqueuePRAfter(ctx, p, d); err != nil {
		return false, fmt.Errorf("schedule a look at %s/%s#%d: %w", x.owner, x.name, x.GetNumber(), err)
	}
	return true, nil
}

// computeWait is the first look after GitHub answered `mergeable: null`:
// it computes mergeability in the background, usually within seconds.
const computeWait = 5 * time.Second

// mergeableUnknown answers a green PR whose mergeability GitHub has not
// computed yet (null is "not known", not "mergeable": a merge call would
// be refused, and no event says when it is known): no merge call, a later
// look with backoff, and the wait said on the issue. Past maxRetries
// looks at one head the issue says so; the next event looks again.
func (l *Lifecycle) mergeableUnknown(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) error {
	later, err := l.retryLater(ctx, x, "mergeable-looks", computeWait, log)
	if err != nil {
		return err
	}
	if later {
		return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged yet: GitHub is still computing whether the PR can merge; Warden looks again shortly.", x.GetNumber()))
	}
	log.Warn("GitHub has not computed mergeable after every look; waiting for an event")
	return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged yet: GitHub has not said whether the PR can merge after %d looks; Warden tries again when the PR, its reviews or its checks change.", x.GetNumber(), maxRetries+1))
}
