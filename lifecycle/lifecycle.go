// Package lifecycle carries an issue past its pipeline run: maintenance PRs
// merge on green checks, evolution PRs wait for a writer's approval, closed
// PRs settle their issue, closed issues release the work that waited on them.
// It re-reads every state from the API: an event only says "look again".
package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/github/branchrules"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/pipeline"
)

// App is the GitHub App side the lifecycle needs.
type App interface {
	Client(installation int64) *github.Client
	BotLogin(ctx context.Context) (string, error)
}

type counter interface {
	Incr(ctx context.Context, key string) (int64, error)
	Get(ctx context.Context, key string) (int64, error)
}

// Lifecycle implements jobs.Lifecycle.
type Lifecycle struct {
	App      App
	Queue    *jobs.Queue
	Links    *jobs.Links
	Counter  counter
	Prefix   string
	Redactor *comments.Redactor
	Log      *slog.Logger
	// MaxCheckFixes bounds fix attempts queued for failing CI on one issue.
	MaxCheckFixes int
	// Followups holds feedback and branch holds for follow-ups; may be nil.
	Followups *followup.Store
	// Locks holds the per-PR lease (lease.go); nil evaluates unleased.
	Locks *jobs.Locks
	// Rules caches each repository's branch rules; nil reads them every time.
	Rules *branchrules.Reader
	// Effects journals the merge queue and auto-merge effects (bind.go);
	// nil journals nothing.
	Effects *effects.Journal
	// Memo knows the status comment each issue has (comments.StatusMemo);
	// nil lists the issue's comments for every note.
	Memo comments.StatusMemo
}

// poster writes Warden's comments as bot through c.
func (l *Lifecycle) poster(c *github.Client, bot string) *comments.Poster {
	return &comments.Poster{Client: c.Issues, BotLogin: bot, Redactor: l.Redactor, Memo: l.Memo}
}

// pr is a Warden pull request as re-read from the API.
type pr struct {
	*github.PullRequest
	owner, name  string
	issue        int
	mode         string
	installation int64
}

// wardenPR re-reads a PR and returns it when Warden opened it: authored by
// the bot and carrying the marker. Anything else is not Warden's to act on.
func (l *Lifecycle) wardenPR(ctx context.Context, c *github.Client, repo string, n int) (*pr, error) {
	owner, name, _ := strings.Cut(repo, "/")
	got, _, err := c.PullRequests.Get(ctx, owner, name, n)
	if err != nil {
		return nil, fmt.Errorf("get PR %s#%d: %w", repo, n, err)
	}
	bot, err := l.App.BotLogin(ctx)
	if err != nil {
		return nil, err
	}
	if got.GetUser().GetLogin() != bot {
		return nil, nil
	}
	// One reader of the marker for every consumer (followup.Marker): the
	// last marker, the one Warden wrote, never a copy in the model's text.
	issue, mode, ok := followup.Marker(l.Prefix, got.GetBody())
	if !ok {
		return nil, nil
	}
	// The head branch is Warden's own too (warden/<issue>-…): a marker
	// naming another issue is not the one Warden wrote.
	if !strings.HasPrefix(got.GetHead().GetRef(), fmt.Sprintf("%s/%d-", l.Prefix, issue)) {
		l.Log.Warn("PR marker disagrees with its branch; not acted on", "repo", repo, "pr", n, "issue", issue, "branch", got.GetHead().GetRef(), "audit", true)
		return nil, nil
	}
	return &pr{PullRequest: got, owner: owner, name: name, issue: issue, mode: mode}, nil
}

// prsFor lists the PRs to evaluate for a payload: the named one, or the open
// Warden PRs whose head is the payload's SHA.
func (l *Lifecycle) prsFor(ctx context.Context, c *github.Client, p jobs.PRPayload) ([]int, error) {
	if p.PR != 0 {
		return []int{p.PR}, nil
	}
	owner, name, _ := strings.Cut(p.Repo, "/")
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	var out []int
	for range maxPages { // a busy repository has more than 100 open PRs
		list, resp, err := c.PullRequests.List(ctx, owner, name, opts)
		if err != nil {
			return nil, fmt.Errorf("list PRs %s: %w", p.Repo, err)
		}
		for _, x := range list {
			// A rules change names no head: every open Warden PR is looked at again.
			if (x.GetHead().GetSHA() == p.SHA || p.Action == "rules") && strings.HasPrefix(x.GetHead().GetRef(), l.Prefix+"/") {
				out = append(out, x.GetNumber())
			}
		}
		if opts.Page = resp.NextPage; opts.Page == 0 {
			break
		}
	}
	return out, nil
}

// issueHost is the issue side of a PR, for labels and comments.
func (l *Lifecycle) issueHost(ctx context.Context, c *github.Client, x *pr) (*pipeline.GitHubHost, error) {
	bot, err := l.App.BotLogin(ctx)
	if err != nil {
		return nil, err
	}
	h := &pipeline.GitHubHost{Client: c, Owner: x.owner, Name: x.name, Number: x.issue, Prefix: l.Prefix, BotLogin: bot,
		Poster: l.poster(c, bot)}
	if _, err := h.Issue(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

// IssueRef parses "#12" or a URL of an issue in the same repository.
func IssueRef(repo, s string) int {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(strings.TrimPrefix(s, "#")); err == nil && n > 0 && strings.HasPrefix(s, "#") {
		return n
	}
	prefix := "/" + repo + "/issues/"
	if i := strings.Index(s, prefix); i >= 0 {
		if n, err := strconv.Atoi(strings.TrimRight(s[i+len(prefix):], "/")); err == nil && n > 0 {
			return n
		}
	}
	return 0
}
