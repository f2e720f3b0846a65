package pipeline

import (
	"context"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/github/codeowners"
	"github.com/warden-bot/warden/trusted"
)

// maxReviewers bounds one review request: a CODEOWNERS that names dozens
// of owners for a change should not page them all.
const maxReviewers = 15

// ownersOf lists the code owners of files in the default branch's
// CODEOWNERS (in.CodeOwners), each once, in the order first met.
func ownersOf(in *trusted.Inputs, files []string) []string {
	if in == nil || in.CodeOwners == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		for _, o := range in.CodeOwners.Owners(f) {
			if k := strings.ToLower(o); !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
	}
	return out
}

// askReview asks for the review an evolution PR waits for, once per head,
// and returns the status comment's sentence about it. A maintenance PR
// needs a review only where its base branch's rules say so: the request
// is kept as a proposal, and the lifecycle makes it when an evaluation
// reads such a rule (no rules read here: they are read there anyway).
// Nothing here fails the run: a refused or failed request is said instead.
func (h *GitHubHost) askReview(ctx context.Context, pr *github.PullRequest, sha string, in ReleaseInput) string {
	source := "code owners of the changed files"
	users, teams := h.reviewers(in.Owners, pr.GetUser().GetLogin())
	if len(users)+len(teams) == 0 && in.Labeller != "" {
		users, _ = h.reviewers([]string{"@" + in.Labeller}, pr.GetUser().GetLogin())
		source = "who labelled the issue"
	}
	if len(users)+len(teams) == 0 {
		if in.Mode != "evolution" {
			return ""
		}
		return "No review was requested: the changed files have no code owner and no writer labelled the issue."
	}
	it := effects.ReviewIntent(h.repo(), h.Installation, pr.GetNumber(), sha, users, teams)
	it.Source = source
	if in.Mode != "evolution" {
		if h.Effects != nil {
			if err := h.Effects.Propose(ctx, it); err != nil {
				h.logger().Warn("review request not kept for the PR's evaluation", "pr", pr.GetNumber(), "err", err)
			}
		}
		return ""
	}
	asked, already, err := effects.RequestReview(ctx, h.Effects, effects.GitHub{C: h.Client}, it)
	switch {
	case already:
		return ""
	case err != nil:
		h.logger().Warn("review request failed; the effects sweep asks again", "pr", pr.GetNumber(), "err", err)
		return "Warden could not request review yet (" + err.Error() + "); it asks again."
	}
	return asked.Sentence(h.Owner, source)
}

// reviewers splits owners into users and team slugs, leaving out Warden
// itself and the PR's author (GitHub refuses the author; Warden approving
// its own PR would mean nothing).
func (h *GitHubHost) reviewers(owners []string, author string) (users, teams []string) {
	us, ts := codeowners.Reviewers(owners)
	for _, u := range us {
		if !strings.EqualFold(u, h.BotLogin) && !strings.EqualFold(u, author) && len(users)+len(teams) < maxReviewers {
			users = append(users, u)
		}
	}
	for _, t := range ts {
		if len(users)+len(teams) < maxReviewers {
			teams = append(teams, t)
		}
	}
	return users, teams
}
