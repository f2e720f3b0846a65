package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/environment/workspace"
)

// Release commits the worktree as the App, force-pushes the issue's branch
// (publish: with git, or through the API where commits must be signed) and
// opens its pull request, or reuses the one already open: a retried task
// updates the same branch and PR and never opens a second one.
func (h *GitHubHost) Release(ctx context.Context, wt *workspace.Worktree, in ReleaseInput) (ReleaseResult, error) {
	email, err := h.CommitEmail(ctx)
	if err != nil {
		return ReleaseResult{}, err
	}
	sha, err := wt.Commit(ctx, in.Title, h.BotLogin, email)
	if err != nil {
		return ReleaseResult{}, fmt.Errorf("commit %s: %w", wt.Branch, err)
	}
	token, err := h.Token(ctx)
	if err != nil {
		return ReleaseResult{}, err
	}
	if sha, err = h.publish(ctx, wt, token, h.Expect, sha, 0); err != nil {
		return ReleaseResult{}, err
	}
	pr, err := h.openPR(ctx, wt.Branch, in)
	if err != nil {
		return ReleaseResult{}, err
	}
	if _, _, err := h.Client.Issues.AddLabelsToIssue(ctx, h.Owner, h.Name, pr.GetNumber(), []string{h.Prefix + ":" + in.Mode}); err != nil {
		return ReleaseResult{}, fmt.Errorf("label PR %s#%d: %w", h.repo(), pr.GetNumber(), err)
	}
	if err := h.modeStatus(ctx, sha, in.Mode); err != nil {
		return ReleaseResult{}, err
	}
	note := h.askReview(ctx, pr, sha, in)
	return ReleaseResult{PR: pr.GetNumber(), URL: pr.GetHTMLURL(), HeadSHA: sha, Note: note}, nil
}

// PRMarker is the hidden marker in a Warden PR's body.
func PRMarker(prefix string, issue int, mode string) string {
	b, _ := json.Marshal(map[string]any{"issue": issue, "mode": mode})
	return fmt.Sprintf("<!-- %s:pr %s -->", prefix, b)
}

// prBody is the PR's description. The summary and file names are the
// model's text: they are neutralised (no HTML comment can open in them, so
// none can pass for Warden's marker, which comes last) and redacted.
func (h *GitHubHost) prBody(in ReleaseInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Fixes #%d\n\n%s\n\n", h.Number, comments.Neutralize(strings.TrimSpace(in.Summary)))
	if len(in.Files) > 0 {
		b.WriteString("Files changed:\n")
		for _, f := range in.Files {
			fmt.Fprintf(&b, "- `%s`\n", comments.NeutralizeFenced(strings.ReplaceAll(f, "`", "'")))
		}
		b.WriteString("\n")
	}
	if in.Mode == "evolution" {
		b.WriteString("Evolution mode: Warden will not merge this PR; it waits for an approving review from a maintainer.\n\n")
	} else {
		b.WriteString("Maintenance mode: Warden merges this PR once every check is green.\n\n")
	}
	body := b.String()
	if h.Poster != nil {
		body = h.Poster.Clean(body)
	}
	return body + PRMarker(h.Prefix, h.Number, in.Mode)
}

func (h *GitHubHost) openPR(ctx context.Context, branch string, in ReleaseInput) (*github.PullRequest, error) {
	// Create first: an open PR for the branch (a retried release) answers
	// 422 "already exists" and is then looked up, so the usual case costs
	// one call instead of a listing and a create.
	title := fmt.Sprintf("%s (#%d)", in.Title, h.Number)
	pr, _, err := h.Client.PullRequests.Create(ctx, h.Owner, h.Name, &github.NewPullRequest{
		Title: &title, Head: &branch, Base: &h.Base, Body: github.String(h.prBody(in)),
	})
	if err == nil {
		return pr, nil
	}
	if isStatus(err, http.StatusUnprocessableEntity) && strings.Contains(err.Error(), "already exists") {
		if pr, ferr := h.findPR(ctx, branch); ferr == nil && pr != nil {
			return pr, nil
		}
	}
	return nil, fmt.Errorf("create PR %s %s: %w", h.repo(), branch, err)
}

func (h *GitHubHost) findPR(ctx context.Context, branch string) (*github.PullRequest, error) {
	prs, _, err := h.Client.PullRequests.List(ctx, h.Owner, h.Name, &github.PullRequestListOptions{
		State: "open", Head: h.Owner + ":" + branch, Base: h.Base,
	})
	if err != nil {
		return nil, fmt.Errorf("list PRs %s %s: %w", h.repo(), branch, err)
	}
	for _, pr := range prs {
		if pr.GetHead().GetRef() == branch {
			return pr, nil
		}
	}
	return nil, nil
}

// ModeContext is the commit status Warden owns on its PRs.
const ModeContext = "warden/mode"

func (h *GitHubHost) modeStatus(ctx context.Context, sha, mode string) error {
	st := &github.RepoStatus{Context: github.String(ModeContext)}
	if mode == "evolution" {
		st.State, st.Description = github.String("pending"), github.String("awaiting maintainer approval")
	} else {
		st.State, st.Description = github.String("success"), github.String("maintenance guards passed")
	}
	if _, _, err := h.Client.Repositories.CreateStatus(ctx, h.Owner, h.Name, sha, st); err != nil {
		return fmt.Errorf("set %s on %s@%s: %w", ModeContext, h.repo(), sha, err)
	}
	return nil
}
