package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/modes"
	"github.com/warden-bot/warden/pipeline"
)

// maybeMerge merges a maintenance PR whose head is green and whose base
// branch's rules are met, through the merge queue where the rules require
// one, passing the head SHA so a push that raced the check cannot be merged
// unchecked. Whatever holds it back is said in the issue's status comment.
func (l *Lifecycle) maybeMerge(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) error {
	read, ci, complete, err := readHead(ctx, c, x) // one GraphQL request (headread.go)
	if err != nil {
		// Nothing is judged on an answer with errors: REST's reads decide,
		// and fail the evaluation on their own errors as before. A GraphQL
		// error that stays (a field an Enterprise Server lacks, another
		// App's metadata the token may not read) would otherwise hold
		// every merge.
		log.Warn("head query failed; reading the config and CI over REST", "err", err)
		read, complete = baseConfig{}, false
	}
	cfg, err := configFrom(ctx, c, x, read)
	var bad *badConfig
	if errors.As(err, &bad) { // a maintainer's to fix: said, not retried
		log.Info("not merging: invalid .github/warden.yml", "err", err)
		return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged: .github/warden.yml on `%s` cannot be used (%v). Warden merges nothing while it is invalid; once it is fixed, the next check, push or `/%s retry` on the PR looks again.",
			x.GetNumber(), x.GetBase().GetRef(), bad.err, l.Prefix))
	}
	if err != nil {
		return err
	}
	if !cfg.Policy(modes.Maintenance).AutoMerge {
		log.Info("auto_merge is off; leaving the PR for a maintainer")
		return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is left for a maintainer to merge: `maintenance.auto_merge` is off in .github/warden.yml.", x.GetNumber()))
	}
	bot, err := l.App.BotLogin(ctx)
	if err != nil {
		return err
	}
	v, why, ci, err := headChecks(ctx, c, x, ci, complete, bot)
	if err != nil {
		return err
	}
	switch v {
	case waiting:
		log.Info("not merging yet", "why", why)
		// Whatever holds the merge back (no CI, a suite that never started)
		// is visible on the issue, not only in the log.
		if until := ci.idleUntil(bot, time.Now()); !until.IsZero() {
			if _, err := l.retryLater(ctx, x, "idle-suite", time.Until(until)+time.Second, log); err != nil {
				return err
			}
		}
		return l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged yet: %s.", x.GetNumber(), why))
	case red:
		if cfg.Flaky.Merge && l.flakyMerge(ctx, c, x, bot, log) {
			break
		}
		if err := l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged: %s.", x.GetNumber(), why)); err != nil {
			log.Warn("merge note not written", "err", err)
		}
		return l.checksFailed(ctx, c, x, why, log)
	}
	rules, err := l.readRules(ctx, c, x)
	if err != nil {
		// Fail closed, visibly: merging without the rules could pass them by.
		if nerr := l.mergeNote(ctx, c, x, fmt.Sprintf("PR #%d is not merged yet: Warden could not read the base branch's rules, and does not merge without them (it tries again).", x.GetNumber())); nerr != nil {
			log.Warn("merge note not written", "err", nerr)
		}
		return err
	}
	head, err := l.headFacts(ctx, c, x, ci, rules, bot)
	if err != nil {
		return err
	}
	if waits := rules.Waits(head, cfg.MergeMethod, enterprise(c)); len(waits) > 0 {
		// No merge call while a rule is unmet: GitHub would refuse it.
		log.Info("the branch's rules are not met yet", "waits", waits)
		note := fmt.Sprintf("PR #%d is not merged yet. The branch's rules say: %s", x.GetNumber(), strings.Join(waits, " "))
		if head.Approvals < rules.Approvals || rules.CodeOwners && head.Approvals == 0 { // the review is still wanted
			if asked := l.askReview(ctx, c, x, rules, log); asked != "" {
				note += " " + asked
			}
		}
		return l.mergeNote(ctx, c, x, note)
	}
	if x.Mergeable == nil {
		return l.mergeableUnknown(ctx, c, x, log) // refusal.go
	}
	if ok, err := l.mergeGuard(ctx, c, x, log); !ok || err != nil {
		return err // read again under the PR's lease, just before the call (lease.go)
	}
	if rules.MergeQueue {
		return l.enqueue(ctx, c, x, rules, log)
	}
	return l.merge(ctx, c, x, rules, cfg.MergeMethod, log)
}

// merged settles the issue of a PR Warden just merged.
func (l *Lifecycle) merged(ctx context.Context, c *github.Client, x *pr, method string, log *slog.Logger) error {
	log.Info("maintenance PR merged", "sha", x.GetHead().GetSHA(), "method", method)
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
	fixKey := jobs.CheckFixesKey(x.owner+"/"+x.name, x.issue)
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
	repo, err := baseRepo(ctx, c, x)
	if err != nil {
		return err
	}
	if err := l.queueCIFix(ctx, c, x, repo); err != nil { // queued first: a lost reply is retried, a lost fix is not seen
		return err
	}
	return h.Poster.Reply(ctx, x.owner, x.name, x.issue, msg+fmt.Sprintf(" Warden queued fix attempt %d of %d on the same branch.", fixes, l.MaxCheckFixes))
}

// baseRepo is the PR's repository as the PR read under the lease shows it
// (its clone URL and default branch), read on its own only when that copy
// lacks them.
func baseRepo(ctx context.Context, c *github.Client, x *pr) (*github.Repository, error) {
	if r := x.GetBase().GetRepo(); r.GetCloneURL() != "" && r.GetDefaultBranch() != "" {
		return r, nil
	}
	repo, _, err := c.Repositories.Get(ctx, x.owner, x.name)
	if err != nil {
		return nil, fmt.Errorf("get repo %s/%s: %w", x.owner, x.name, err)
	}
	return repo, nil
}

// configFrom is the configuration the query read from the base branch; a
// blob it could not give whole (cut, binary, not a file) is read over REST
// as before.
func configFrom(ctx context.Context, c *github.Client, x *pr, read baseConfig) (modes.Config, error) {
	switch {
	case !read.ok:
		return repoConfig(ctx, c, x)
	case !read.found:
		return modes.Parse(nil)
	}
	return parseConfig(read.text)
}

// repoConfig reads .github/warden.yml from the base branch; a missing
// file means the defaults, an invalid one refuses to merge (fail closed).
func repoConfig(ctx context.Context, c *github.Client, x *pr) (modes.Config, error) {
	fc, _, resp, err := c.Repositories.GetContents(ctx, x.owner, x.name, configPath, &github.RepositoryContentGetOptions{Ref: x.GetBase().GetRef()})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return modes.Parse(nil)
	}
	if err != nil {
		return modes.Config{}, fmt.Errorf("read .github/warden.yml: %w", err)
	}
	text, err := fc.GetContent()
	if err != nil {
		return modes.Config{}, &badConfig{err}
	}
	return parseConfig([]byte(text))
}

func parseConfig(text []byte) (modes.Config, error) {
	cfg, err := modes.Parse(text)
	if err != nil {
		return modes.Config{}, &badConfig{err}
	}
	return cfg, nil
}

// badConfig is a default-branch .github/warden.yml that cannot be used:
// retrying does not help, a maintainer's fix does.
type badConfig struct{ err error }

func (b *badConfig) Error() string { return "invalid .github/warden.yml: " + b.err.Error() }
func (b *badConfig) Unwrap() error { return b.err }

// mergeNote says in the issue's status comment why its PR is not merged
// ("" clears it).
func (l *Lifecycle) mergeNote(ctx context.Context, c *github.Client, x *pr, note string) error {
	bot, err := l.App.BotLogin(ctx)
	if err != nil {
		return err
	}
	// Only the comments are needed: no issue read, and with the memo no
	// listing either (comments.StatusMemo).
	return l.poster(c, bot).StatusNote(ctx, x.owner, x.name, x.issue, note)
}
