package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/github/branchrules"
	"github.com/warden-bot/warden/github/githubapp"
)

// readRules reads what x's base branch requires, cached per repository
// when the Lifecycle has a Reader.
func (l *Lifecycle) readRules(ctx context.Context, c *github.Client, x *pr) (branchrules.Rules, error) {
	if l.Rules == nil {
		return branchrules.Read(ctx, c, x.owner, x.name, x.GetBase().GetRef())
	}
	return l.Rules.Get(ctx, c, x.owner, x.name, x.GetBase().GetRef())
}

func (l *Lifecycle) forgetRules(x *pr) {
	if l.Rules != nil {
		l.Rules.Invalidate(x.owner + "/" + x.name)
	}
}

func (l *Lifecycle) refusedMethod(x *pr, m string) {
	if l.Rules != nil {
		l.Rules.Refused(x.owner+"/"+x.name, m)
	}
}

// allowsAutoMerge reads the repository's allow_auto_merge, only when the
// merge queue refused a PR: the one use of the repository's settings.
func allowsAutoMerge(ctx context.Context, c *github.Client, x *pr) bool {
	repo, _, err := c.Repositories.Get(ctx, x.owner, x.name)
	return err == nil && repo.GetAllowAutoMerge()
}

// enterprise reports a client of GitHub Enterprise Server, whose rules on
// signed commits differ from github.com's.
func enterprise(c *github.Client) bool {
	return c.BaseURL != nil && c.BaseURL.Host != "api.github.com"
}

// headFacts is what the rules judge about x's head: the state of each
// context, and the reviews when the rules ask for any.
func (l *Lifecycle) headFacts(ctx context.Context, c *github.Client, x *pr, ci headCI, rules branchrules.Rules, bot string) (branchrules.Head, error) {
	h := branchrules.Head{Contexts: ci.contexts()}
	if rules.Approvals == 0 && !rules.CodeOwners {
		return h, nil // no review rule: no review calls
	}
	reviews, err := allReviews(ctx, c, x)
	if err != nil {
		return h, err
	}
	head := x.GetHead().GetSHA()
	for user, r := range latestReviews(reviews, bot) {
		if !writer(ctx, c, x, user) {
			continue // GitHub counts only reviewers with write access
		}
		switch strings.ToUpper(r.GetState()) {
		case "APPROVED":
			if (rules.DismissStale || rules.LastPushApproval) && r.GetCommitID() != head {
				continue // approved an older head, and the rules dismiss it
			}
			h.Approvals++
		case "CHANGES_REQUESTED":
			h.ChangesRequested = true
		}
	}
	return h, nil
}

// latestReviews keeps each reviewer's newest deciding review: a comment
// neither grants nor withdraws approval; Warden's own never counts.
func latestReviews(reviews []*github.PullRequestReview, bot string) map[string]*github.PullRequestReview {
	latest := map[string]*github.PullRequestReview{}
	for _, r := range reviews {
		user := r.GetUser().GetLogin()
		if user == "" || user == bot || strings.EqualFold(r.GetState(), "COMMENTED") || strings.EqualFold(r.GetState(), "PENDING") {
			continue
		}
		latest[user] = r
	}
	return latest
}

func writer(ctx context.Context, c *github.Client, x *pr, user string) bool {
	perm, _, err := c.Repositories.GetPermissionLevel(ctx, x.owner, x.name, user)
	return err == nil && githubapp.CanWrite(perm.GetPermission())
}

// rulesNote is what an evolution PR's status comment says about the rules
// a maintainer merges it under, when they ask for more than one review.
func rulesNote(x *pr, rules branchrules.Rules) string {
	if rules.Approvals <= 1 {
		return ""
	}
	return fmt.Sprintf("PR #%d: the branch's rules require %d approving reviews from writers before it can merge (Warden's warden/mode turns green on one writer's approval); they require %s.",
		x.GetNumber(), rules.Approvals, rules.Describe())
}
