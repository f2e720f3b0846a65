package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/pipeline"
)

// IssueClosed queues the issues that were blocked on the closed one, and
// completes a decomposed parent once every sub-issue is closed.
func (l *Lifecycle) IssueClosed(ctx context.Context, p jobs.ClosedPayload) error {
	c := l.App.Client(p.Installation)
	blocked, err := l.Links.Unblock(ctx, p.Repo, p.Issue)
	if err != nil {
		return err
	}
	for _, n := range blocked {
		if err := l.requeue(ctx, c, p, n); err != nil {
			return err
		}
		if err := l.Links.Unblocked(ctx, p.Repo, p.Issue, n); err != nil {
			return err
		}
	}
	parent, err := l.Links.Parent(ctx, p.Repo, p.Issue)
	if err != nil || parent == 0 {
		return err
	}
	return l.maybeCompleteParent(ctx, c, p, parent)
}

// requeue starts a blocked issue again with its trigger label's mode.
func (l *Lifecycle) requeue(ctx context.Context, c *github.Client, p jobs.ClosedPayload, n int) error {
	owner, name, _ := strings.Cut(p.Repo, "/")
	is, _, err := c.Issues.Get(ctx, owner, name, n)
	if err != nil {
		return fmt.Errorf("get blocked issue %s#%d: %w", p.Repo, n, err)
	}
	mode := ""
	for _, lb := range is.Labels {
		if m, ok := strings.CutPrefix(lb.GetName(), l.Prefix+":"); ok && (m == "maintenance" || m == "evolution") {
			mode = m
		}
	}
	if is.GetState() != "open" || mode == "" {
		return nil // closed or untriggered since: nothing waits any more
	}
	l.Log.Info("blocker closed; queuing the blocked issue", "repo", p.Repo, "issue", n, "blocker", p.Issue)
	_, err = l.Queue.EnqueueUnblocked(ctx, jobs.RunPayload{Repo: p.Repo, RepoID: p.RepoID, Installation: p.Installation, Issue: n, Mode: mode,
		Title: is.GetTitle(), Body: is.GetBody(), CloneURL: p.CloneURL, DefaultBranch: p.DefaultBranch, Reason: jobs.ReasonUnblock}, p.Issue)
	return err
}

func (l *Lifecycle) maybeCompleteParent(ctx context.Context, c *github.Client, p jobs.ClosedPayload, parent int) error {
	owner, name, _ := strings.Cut(p.Repo, "/")
	kids, err := l.Links.Children(ctx, p.Repo, parent)
	if err != nil {
		return err
	}
	for _, k := range kids {
		is, _, err := c.Issues.Get(ctx, owner, name, k)
		if err != nil {
			return fmt.Errorf("get sub-issue %s#%d: %w", p.Repo, k, err)
		}
		if is.GetState() != "closed" {
			return nil
		}
	}
	bot, err := l.App.BotLogin(ctx)
	if err != nil {
		return err
	}
	h := &pipeline.GitHubHost{Client: c, Owner: owner, Name: name, Number: parent, Prefix: l.Prefix, BotLogin: bot,
		Poster: l.poster(c, bot)}
	if _, err := h.Issue(ctx); err != nil {
		return err
	}
	refs := make([]string, len(kids))
	for i, k := range kids {
		refs[i] = fmt.Sprintf("#%d", k)
	}
	if err := h.Poster.Reply(ctx, owner, name, parent, "Every sub-issue is closed ("+strings.Join(refs, ", ")+"), so this issue is complete."); err != nil {
		return err
	}
	if err := h.State(ctx, pipeline.StateCompleted); err != nil {
		return err
	}
	if _, _, err := c.Issues.Edit(ctx, owner, name, parent, &github.IssueRequest{State: github.String("closed")}); err != nil {
		return fmt.Errorf("close parent %s#%d: %w", p.Repo, parent, err)
	}
	return nil
}
