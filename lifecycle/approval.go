package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/github/githubapp"
)

// approval sets warden/mode on an evolution PR's head: success only for an
// APPROVED review of the current head by a writer who is not Warden, pending
// otherwise. A new push moves the head, so an old approval stops counting.
// Warden never merges evolution PRs.
func (l *Lifecycle) approval(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) error {
	by, err := l.approver(ctx, c, x)
	if err != nil {
		return err
	}
	l.evolutionRulesNote(ctx, c, x, log)
	if by == "" {
		return l.setStatus(ctx, c, x, "pending", "awaiting maintainer approval")
	}
	log.Info("evolution PR approved", "by", by, "sha", x.GetHead().GetSHA())
	return l.setStatus(ctx, c, x, "success", "approved by @"+by)
}

// approver returns a writer whose latest review approves the current head.
func (l *Lifecycle) approver(ctx context.Context, c *github.Client, x *pr) (string, error) {
	bot, err := l.App.BotLogin(ctx)
	if err != nil {
		return "", err
	}
	reviews, err := allReviews(ctx, c, x)
	if err != nil {
		return "", err
	}
	latest := map[string]*github.PullRequestReview{}
	for _, r := range reviews {
		user := r.GetUser().GetLogin()
		if user == "" || user == bot || strings.EqualFold(r.GetState(), "COMMENTED") {
			continue // a comment neither grants nor withdraws approval
		}
		latest[user] = r
	}
	head := x.GetHead().GetSHA()
	for user, r := range latest {
		if !strings.EqualFold(r.GetState(), "APPROVED") || r.GetCommitID() != head {
			continue
		}
		perm, _, err := c.Repositories.GetPermissionLevel(ctx, x.owner, x.name, user)
		if err != nil {
			continue // cannot tell: does not count (fail closed)
		}
		if githubapp.CanWrite(perm.GetPermission()) {
			return user, nil
		}
	}
	return "", nil
}

// allReviews lists the PR's reviews across every page, oldest first: the
// newest decide, and a PR with more than 100 has them past the first page.
func allReviews(ctx context.Context, c *github.Client, x *pr) ([]*github.PullRequestReview, error) {
	var out []*github.PullRequestReview
	opts := &github.ListOptions{PerPage: 100}
	for range maxPages {
		got, resp, err := c.PullRequests.ListReviews(ctx, x.owner, x.name, x.GetNumber(), opts)
		if err != nil {
			return nil, fmt.Errorf("list reviews of %s/%s#%d: %w", x.owner, x.name, x.GetNumber(), err)
		}
		out = append(out, got...)
		if opts.Page = resp.NextPage; opts.Page == 0 {
			return out, nil
		}
	}
	return out, nil
}

// evolutionRulesNote says on the issue when the base branch's rules ask for
// more than the one writer's approval warden/mode waits for: a maintainer
// merges an evolution PR, and should not wonder why GitHub still blocks it.
// Best effort: the approval status does not depend on it.
func (l *Lifecycle) evolutionRulesNote(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) {
	rules, err := l.readRules(ctx, c, x)
	if err != nil {
		log.Warn("branch rules not read; the status comment says nothing of them", "err", err)
		return
	}
	if note := rulesNote(x, rules); note != "" {
		if err := l.mergeNote(ctx, c, x, note); err != nil {
			log.Warn("rules note not written", "err", err)
		}
	}
}
