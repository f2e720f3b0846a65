package effects

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
)

// Asked is who GitHub's answers show asked to review, and who was left out
// because GitHub refused them (422: not a collaborator, or otherwise
// unable to review): a refused reviewer does not fail the run.
type Asked struct {
	Users, Teams []string
	Refused      []string // "@login" or "@org/team"-like names as asked
}

// RequestReviewers asks users and teams (slugs) to review PR n. GitHub
// refuses the whole request with a 422 when any one of them cannot be
// asked, without naming which; each is then asked alone, so only the
// refused ones are dropped. Someone counts as asked only when GitHub's
// answer lists them among the PR's requested reviewers.
func (g GitHub) RequestReviewers(ctx context.Context, owner, name string, n int, users, teams []string) (Asked, error) {
	pr, err := g.request(ctx, owner, name, n, users, teams)
	if err == nil {
		return shown(pr, users, teams), nil
	}
	if !refused(err) {
		return Asked{}, err
	}
	var out Asked
	for _, u := range users {
		if err := g.one(ctx, owner, name, n, []string{u}, nil, "@"+u, &out); err != nil {
			return out, err
		}
	}
	for _, t := range teams {
		if err := g.one(ctx, owner, name, n, nil, []string{t}, "team "+t, &out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// one asks a single reviewer, adding them to out as asked or refused.
func (g GitHub) one(ctx context.Context, owner, name string, n int, users, teams []string, label string, out *Asked) error {
	pr, err := g.request(ctx, owner, name, n, users, teams)
	switch {
	case refused(err):
		out.Refused = append(out.Refused, label)
		return nil
	case err != nil:
		return err
	}
	s := shown(pr, users, teams)
	out.Users, out.Teams = append(out.Users, s.Users...), append(out.Teams, s.Teams...)
	return nil
}

func (g GitHub) request(ctx context.Context, owner, name string, n int, users, teams []string) (*github.PullRequest, error) {
	pr, _, err := g.C.PullRequests.RequestReviewers(ctx, owner, name, n, github.ReviewersRequest{Reviewers: users, TeamReviewers: teams})
	if err != nil {
		return nil, fmt.Errorf("request reviewers on %s/%s#%d: %w", owner, name, n, err)
	}
	return pr, nil
}

// refused is GitHub's 422 for a reviewer it will not ask.
func refused(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity
}

// shown keeps, of what was asked, what the answered PR lists as requested.
func shown(pr *github.PullRequest, users, teams []string) Asked {
	var out Asked
	for _, u := range users {
		if slices.ContainsFunc(pr.RequestedReviewers, func(x *github.User) bool { return x.GetLogin() == u }) {
			out.Users = append(out.Users, u)
		}
	}
	for _, t := range teams {
		if slices.ContainsFunc(pr.RequestedTeams, func(x *github.Team) bool { return x.GetSlug() == t }) {
			out.Teams = append(out.Teams, t)
		}
	}
	return out
}

// Sentence is what the status comment says about the request: who was
// asked (teams as @owner/slug: a repository's reviewers are teams of its
// owner), as whom (source), and whom GitHub refused.
func (a Asked) Sentence(owner, source string) string {
	var names []string
	for _, u := range a.Users {
		names = append(names, "@"+u)
	}
	for _, t := range a.Teams {
		names = append(names, "@"+owner+"/"+t)
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
