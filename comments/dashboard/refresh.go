package dashboard

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/warden-bot/warden/jobs"
)

// Refresh is jobs.Dashboard: it retries the issues a writer ticked, then
// renders the repository's state and writes it when it changed. A
// repository that turned its dashboard off gets nothing written.
func (b *Board) Refresh(ctx context.Context, p jobs.DashboardPayload) error {
	if b.App == nil {
		return nil
	}
	client := b.App.Client(p.Installation)
	for _, n := range p.Retry {
		if err := b.retry(ctx, client.Issues, p, n); err != nil {
			return err
		}
	}
	on, err := b.enabled(ctx, p.Repo)
	if err != nil || !on {
		return err
	}
	st, err := b.gather(ctx, p.Repo, p.Installation)
	if err != nil {
		return err
	}
	return b.write(ctx, client.Issues, p.Repo, Render(st, b.Prefix), p.Rewrite)
}

// retry is `/warden retry` on issue n, asked by ticking its box: the issue
// must be open and carry exactly one trigger label, as for the command.
func (b *Board) retry(ctx context.Context, api issuesAPI, p jobs.DashboardPayload, n int) error {
	owner, name, _ := strings.Cut(p.Repo, "/")
	is, _, err := api.Get(ctx, owner, name, n)
	if err != nil {
		return fmt.Errorf("read %s#%d to retry it: %w", p.Repo, n, err)
	}
	log := b.Log.With("repo", p.Repo, "issue", n, "user", p.Sender)
	if is.IsPullRequest() || is.GetState() != "open" {
		log.Info("dashboard retry ignored: not an open issue")
		return nil
	}
	mode, ok := b.mode(is.Labels)
	if !ok {
		note := fmt.Sprintf("A retry of this issue was asked on the dashboard, but it needs exactly one of the labels `%s:maintenance` or `%s:evolution`.", b.Prefix, b.Prefix)
		return b.Queue.EnqueueStatus(ctx, jobs.StatusPayload{Repo: p.Repo, Installation: p.Installation, Issue: n, State: "reply", Note: note})
	}
	run := jobs.RunPayload{
		Repo: p.Repo, RepoID: p.RepoID, Installation: p.Installation, Issue: n, IssueID: is.GetID(),
		Mode: mode, Title: is.GetTitle(), Body: is.GetBody(), CloneURL: p.CloneURL, DefaultBranch: p.DefaultBranch,
		Sender: p.Sender, Reason: jobs.ReasonRetry,
	}
	res, err := b.Queue.EnqueueRun(ctx, run)
	if err != nil {
		return fmt.Errorf("queue retry of %s#%d: %w", p.Repo, n, err)
	}
	log.Info("dashboard retry", "result", res, "audit", true)
	st := jobs.StatusPayload{Repo: p.Repo, Installation: p.Installation, Issue: n, Mode: mode, State: "queued"}
	if res == jobs.AlreadyQueued {
		st.Note = "Already queued or running: this request was merged into it."
	}
	return b.Queue.EnqueueStatus(ctx, st)
}

// mode is the issue's one trigger label's mode; none or both is not ok.
func (b *Board) mode(labels []*github.Label) (string, bool) {
	mode := ""
	for _, l := range labels {
		m, ok := strings.CutPrefix(l.GetName(), b.Prefix+":")
		if !ok || (m != "maintenance" && m != "evolution") {
			continue
		}
		if mode != "" && mode != m {
			return "", false
		}
		mode = m
	}
	return mode, mode != ""
}
