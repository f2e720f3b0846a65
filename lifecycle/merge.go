package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/modes"
	"github.com/warden-bot/warden/pipeline"
)

// maybeMerge squash-merges a maintenance PR whose head is green, passing the
// head SHA so a push that raced the check cannot be merged unchecked.
func (l *Lifecycle) maybeMerge(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) error {
	cfg, err := repoConfig(ctx, c, x)
	if err != nil {
		return err
	}
	if !cfg.Policy(modes.Maintenance).AutoMerge {
		log.Info("auto_merge is off; leaving the PR for a maintainer")
		return nil
	}
	bot, err := l.App.BotLogin(ctx)
	if err != nil {
		return err
	}
	v, why, err := headChecks(ctx, c, x, bot)
	if err != nil {
		return err
	}
	switch v {
	case waiting:
		log.Info("not merging yet", "why", why)
		// Whatever holds the merge back (no CI, a suite that never started)
		// is visible on the issue, not only in the log.
		return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged yet: %s.", x.GetNumber(), why))
	case red:
		if err := l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged: %s.", x.GetNumber(), why)); err != nil {
			log.Warn("merge note not written", "err", err)
		}
		return l.checksFailed(ctx, c, x, why, log)
	}
	if ok, err := l.mergeGuard(ctx, x, log); !ok || err != nil {
		return err // under the lease, just before the call (lease.go)
	}
	_, _, err = c.PullRequests.Merge(ctx, x.owner, x.name, x.GetNumber(), "", &github.PullRequestOptions{MergeMethod: "squash", SHA: x.GetHead().GetSHA()})
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && (er.Response.StatusCode == http.StatusMethodNotAllowed || er.Response.StatusCode == http.StatusConflict) {
		// Not mergeable yet, or a new head: look again later (lease.go).
		return l.mergeRefused(ctx, c, x, x.attempt, err, log)
	}
	if err != nil {
		return fmt.Errorf("merge %s/%s#%d: %w", x.owner, x.name, x.GetNumber(), err)
	}
	log.Info("maintenance PR merged", "sha", x.GetHead().GetSHA())
	h, err := l.issueHost(ctx, c, x)
	if err != nil {
		return err
	}
	if err := h.Poster.StatusNote(ctx, x.owner, x.name, x.issue, ""); err != nil {
		log.Warn("merge note not cleared", "err", err)
	}
	return h.State(ctx, pipeline.StateCompleted)
}

// checksFailed tells the issue once per head and, within the fix budget,
// queues a fix attempt that updates the same branch and PR. The counts are
// written after the effects (under the PR's lease): a retry after a
// transient error reports and queues what the first try did not.
func (l *Lifecycle) checksFailed(ctx context.Context, c *github.Client, x *pr, why string, log *slog.Logger) error {
	sha := x.GetHead().GetSHA()
	reported := fmt.Sprintf("%s/%s#%d:checks:%s", x.owner, x.name, x.issue, sha)
	if n, err := l.Counter.Get(ctx, reported); err != nil || n > 0 {
		return err // this head's failure was reported already
	}
	fixKey := fmt.Sprintf("%s/%s#%d:check-fixes", x.owner, x.name, x.issue)
	fixes, err := l.Counter.Get(ctx, fixKey)
	if err != nil {
		return err
	}
	fixes++
	if err := l.reportChecks(ctx, c, x, why, fixes, log); err != nil {
		return err
	}
	if _, err := l.Counter.Incr(ctx, fixKey); err != nil {
		return err
	}
	_, err = l.Counter.Incr(ctx, reported)
	return err
}

// reportChecks answers a red head: a fix attempt within the budget, an
// escalation after it.
func (l *Lifecycle) reportChecks(ctx context.Context, c *github.Client, x *pr, why string, fixes int64, log *slog.Logger) error {
	sha := x.GetHead().GetSHA()
	h, err := l.issueHost(ctx, c, x)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("CI failed on PR #%d (`%s`): %s.", x.GetNumber(), sha[:min(7, len(sha))], why)
	if int(fixes) > l.MaxCheckFixes {
		log.Info("checks failed; fix budget spent", "why", why)
		if err := h.Poster.Reply(ctx, x.owner, x.name, x.issue, msg+" The fix budget is spent; a maintainer needs to look."); err != nil {
			return err
		}
		return h.State(ctx, pipeline.StateEscalated)
	}
	log.Info("checks failed; queuing a fix attempt", "why", why)
	repo, _, err := c.Repositories.Get(ctx, x.owner, x.name)
	if err != nil {
		return fmt.Errorf("get repo %s/%s: %w", x.owner, x.name, err)
	}
	if err := l.queueCIFix(ctx, c, x, repo); err != nil { // queued first: a lost reply is retried, a lost fix is not seen
		return err
	}
	return h.Poster.Reply(ctx, x.owner, x.name, x.issue, msg+fmt.Sprintf(" Warden queued fix attempt %d of %d on the same branch.", fixes, l.MaxCheckFixes))
}

// repoConfig reads .github/warden.yml from the default branch; a missing
// file means the defaults, an invalid one refuses to merge (fail closed).
func repoConfig(ctx context.Context, c *github.Client, x *pr) (modes.Config, error) {
	fc, _, resp, err := c.Repositories.GetContents(ctx, x.owner, x.name, ".github/warden.yml", &github.RepositoryContentGetOptions{Ref: x.GetBase().GetRef()})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return modes.Parse(nil)
	}
	if err != nil {
		return modes.Config{}, fmt.Errorf("read .github/warden.yml: %w", err)
	}
	text, err := fc.GetContent()
	if err != nil {
		return modes.Config{}, fmt.Errorf("decode .github/warden.yml: %w", err)
	}
	cfg, err := modes.Parse([]byte(text))
	if err != nil {
		return modes.Config{}, fmt.Errorf("invalid .github/warden.yml: %w", err)
	}
	return cfg, nil
}

// mergeNote says in the issue's status comment why its PR is not merged
// ("" clears it).
func (l *Lifecycle) mergeNote(ctx context.Context, c *github.Client, x *pr, note string) error {
	bot, err := l.App.BotLogin(ctx)
	if err != nil {
		return err
	}
	// Only the comments are needed: no issue read, each evaluation is cheap.
	p := &comments.Poster{Client: c.Issues, BotLogin: bot, Redactor: l.Redactor}
	return p.StatusNote(ctx, x.owner, x.name, x.issue, note)
}
