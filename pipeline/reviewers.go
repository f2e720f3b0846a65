package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/github/branchrules"
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

// askReview asks for the review the PR needs, once per head, and returns
// the sentence the status comment says about it ("" when it needs none).
// Nothing here fails the run: a review request is a courtesy to the
// people the PR waits for, and a refused or failed one is said instead.
func (h *GitHubHost) askReview(ctx context.Context, pr *github.PullRequest, sha string, in ReleaseInput) string {
	if !h.needsApproval(ctx, in.Mode) {
		return ""
	}
	owners, source := in.Owners, "code owners of the changed files"
	users, teams := h.reviewers(owners, pr.GetUser().GetLogin())
	if len(users)+len(teams) == 0 && in.Labeller != "" {
		users, _ = h.reviewers([]string{"@" + in.Labeller}, pr.GetUser().GetLogin())
		source = "who labelled the issue"
	}
	if len(users)+len(teams) == 0 {
		return "No review was requested: the changed files have no code owner and no writer labelled the issue."
	}
	it := effects.ReviewIntent(h.repo(), h.Installation, pr.GetNumber(), sha, users, teams)
	asked, already, err := effects.RequestReview(ctx, h.Effects, effects.GitHub{C: h.Client}, it)
	switch {
	case already:
		return ""
	case err != nil:
		h.logger().Warn("review request failed; the effects sweep asks again", "pr", pr.GetNumber(), "err", err)
		return "Warden could not request review yet (" + err.Error() + "); it asks again."
	}
	return askedNote(asked, teamNames(owners), source)
}

// needsApproval reports a PR that waits for an approval: every evolution
// PR, and a maintenance PR whose base branch's rules require an approving
// or a code owner's review. Rules that cannot be read ask for none: the
// merge itself still waits on them (lifecycle), this is only a courtesy.
func (h *GitHubHost) needsApproval(ctx context.Context, mode string) bool {
	if mode == "evolution" {
		return true
	}
	var rules branchrules.Rules
	var err error
	if h.Rules != nil {
		rules, err = h.Rules.Get(ctx, h.Client, h.Owner, h.Name, h.Base)
	} else {
		rules, err = branchrules.Read(ctx, h.Client, h.Owner, h.Name, h.Base)
	}
	if err != nil {
		h.logger().Warn("branch rules not read; no review requested", "err", err)
		return false
	}
	return rules.Approvals > 0 || rules.CodeOwners
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

// teamNames maps a team's slug to its owner entry ("@org/slug"), to name it as CODEOWNERS does.
func teamNames(owners []string) map[string]string {
	out := map[string]string{}
	for _, o := range owners {
		if _, slug, ok := strings.Cut(o, "/"); ok {
			out[slug] = o
		}
	}
	return out
}

// askedNote is the status comment's sentence about a review request.
func askedNote(a effects.Asked, teams map[string]string, source string) string {
	var names []string
	for _, u := range a.Users {
		names = append(names, "@"+u)
	}
	for _, t := range a.Teams {
		names = append(names, teams[t])
	}
	var b strings.Builder
	if len(names) > 0 {
		fmt.Fprintf(&b, "Review requested from %s (%s).", strings.Join(names, ", "), source)
	} else {
		b.WriteString("No review was requested.")
	}
	if len(a.Refused) > 0 {
		fmt.Fprintf(&b, " GitHub refused to ask %s (a reviewer must be a collaborator with access to the repository), so Warden left them out.", strings.Join(a.Refused, ", "))
	}
	return b.String()
}
