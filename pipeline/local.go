package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
)

// LocalHost runs an attempt against a local checkout with no GitHub: progress
// goes to a writer, the outcome is kept for printing, and Release commits the
// change and pushes it as a branch into the local repository only.
type LocalHost struct {
	Title, Body string
	RepoURL     string // file:// URL of the local repository
	Progress    io.Writer

	Record  outcome.Record
	Comment string
	Branch  string
}

// Issue is the title and body given on the command line.
func (h *LocalHost) Issue(context.Context) (IssueInfo, error) {
	return IssueInfo{Title: h.Title, Body: h.Body, Open: true}, nil
}

// PriorOutcomes: a local run has no memory.
func (h *LocalHost) PriorOutcomes(context.Context) ([]outcome.Record, error) { return nil, nil }

// Status prints one line per transition.
func (h *LocalHost) Status(_ context.Context, s comments.Status) error {
	for _, st := range s.Stages {
		if st.State == "running" {
			fmt.Fprintf(h.Progress, "warden: %s…\n", st.Name)
		}
	}
	return nil
}

// Outcome keeps the record and the rendered comment.
func (h *LocalHost) Outcome(_ context.Context, rec outcome.Record, d comments.Details) error {
	h.Record = rec
	h.Comment = comments.RenderOutcome(rec, d)
	return nil
}

// State has no labels to set locally.
func (h *LocalHost) State(context.Context, string) error { return nil }

// Release commits and leaves the change on a branch of the local repository.
func (h *LocalHost) Release(ctx context.Context, wt *workspace.Worktree, in ReleaseInput) (ReleaseResult, error) {
	sha, err := wt.Commit(ctx, in.Title, "Warden", "warden@localhost")
	if err != nil {
		return ReleaseResult{}, fmt.Errorf("commit: %w", err)
	}
	if err := wt.Push(ctx, h.RepoURL, ""); err != nil {
		return ReleaseResult{}, fmt.Errorf("leave branch %s in %s: %w", wt.Branch, h.RepoURL, err)
	}
	h.Branch = wt.Branch
	return ReleaseResult{HeadSHA: sha}, nil
}

// Decompose cannot create issues locally: the subtasks are listed in the outcome.
func (h *LocalHost) Decompose(_ context.Context, subtasks []Subtask) ([]int, error) {
	for i, s := range subtasks {
		fmt.Fprintf(h.Progress, "warden: subtask %d: %s\n", i+1, s.Title)
	}
	return nil, nil
}
