package pipeline

import (
	"context"
	"errors"

	"github.com/shurcooL/githubv4"
	"github.com/warden-bot/warden/github/githubapp"
)

// issueQuery reads the issue with the node ids of its labels and of the
// repository's labels of Warden's prefix: the same one request as REST's
// issue read, and with those ids the run's last state change is one
// request instead of two (labelswap.go).
type issueQuery struct {
	Repository *struct {
		Issue *struct {
			ID          string
			Title, Body string
			State       string // OPEN, CLOSED
			Author      *githubapp.Actor
			Labels      struct {
				PageInfo struct{ HasNextPage bool }
				Nodes    []gqlLabel
			} `graphql:"labels(first: 100)"`
			Comments struct{ TotalCount int }
		} `graphql:"issue(number: $number)"`
		Labels struct {
			Nodes []gqlLabel
		} `graphql:"labels(first: 100, query: $prefix)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

type gqlLabel struct{ ID, Name string }

// issueByGraphQL is Issue over GraphQL; ok is false when the answer cannot
// stand in for REST's (an error, no such issue, over 100 labels), and the
// caller reads the issue over REST instead.
func (h *GitHubHost) issueByGraphQL(ctx context.Context) (info IssueInfo, ok bool) {
	var q issueQuery
	vars := map[string]any{
		"owner":  githubv4.String(h.Owner),
		"name":   githubv4.String(h.Name),
		"number": githubv4.Int(h.Number),
		"prefix": githubv4.String(h.Prefix + ":"),
	}
	if err := githubapp.GraphQL(h.Client).Query(ctx, &q, vars); err != nil || q.Repository == nil || q.Repository.Issue == nil {
		return info, false
	}
	is := q.Repository.Issue
	if is.Labels.PageInfo.HasNextPage {
		return info, false
	}
	info = IssueInfo{Title: is.Title, Body: is.Body, Open: is.State == "OPEN", Author: authorLogin(is.Author)}
	h.labelIDs = map[string]string{}
	for _, l := range q.Repository.Labels.Nodes {
		h.labelIDs[l.Name] = l.ID
	}
	for _, l := range is.Labels.Nodes {
		info.Labels = append(info.Labels, l.Name)
		h.labelIDs[l.Name] = l.ID
	}
	h.issueID = is.ID
	h.comments, h.counted = is.Comments.TotalCount, true
	return info, true
}

// authorLogin spells an author as REST does (githubapp.Actor), a deleted
// account "ghost": the author's permission is looked up by this name
// (vetted.go).
func authorLogin(a *githubapp.Actor) string {
	if a == nil {
		return "ghost"
	}
	return a.RESTLogin()
}

// errNoIDs is why a state change goes over REST: a label it needs has no
// known node id (never created in the repository yet, or the issue was
// read over REST).
var errNoIDs = errors.New("label node ids unknown")
