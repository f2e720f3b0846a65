package pipeline

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/warden-bot/warden/agent"
)

// Bounds on what the prompts carry, so a large repository cannot blow the
// model's context or the budget.
const (
	maxListedFiles = 400
	maxTotalBytes  = 128 << 10 // the planned files' text in an edit prompt
	minExcerpt     = 8 << 10   // an excerpt's size when the budget is short
)

// issueInput is the issue as the prompts quote it: what a maintainer sees
// rendered, hidden content removed.
func (a *attempt) issueInput() agent.IssueInput {
	return agent.IssueInput{Repo: a.t.Repo, Number: a.t.Issue, Title: agent.Visible(a.t.Title), Body: agent.Visible(a.t.Body)}
}

func (a *attempt) limitsInput() agent.LimitsInput {
	return agent.LimitsInput{
		Mode: a.t.Mode, MaxFiles: a.policy.MaxFiles, MaxLines: a.policy.MaxLines,
		Protected: a.policy.Limits.Protected, AllowTestChanges: a.policy.AllowTestChanges,
	}
}

func (a *attempt) planInput(ctx context.Context, feedback string) agent.PlanInput {
	pc := a.planCtx(ctx)
	in := agent.PlanInput{
		Issue: a.issueInput(), Limits: a.limitsInput(), Previous: previous(a.prior), Feedback: feedback,
		Context: pc.view, Comments: pc.comments, Reads: pc.reads.String(), ReadTurns: maxReadTurns - pc.turns,
	}
	if in.Context == "" {
		in.Tree = a.listFiles()
	}
	return in
}

func (a *attempt) editInput() agent.EditInput {
	return agent.EditInput{
		Issue: a.issueInput(), Limits: a.limitsInput(), Plan: a.plan,
		Files: a.readFiles(a.plan.Files), Previous: previous(a.prior), Missing: a.missing,
	}
}

// previous condenses earlier attempts' records for the prompts.
func previous(recs []outcomeRecord) []agent.PreviousAttempt {
	var out []agent.PreviousAttempt
	for _, r := range recs {
		if r.Outcome == "completed" {
			continue
		}
		out = append(out, agent.PreviousAttempt{
			Attempt: r.Attempt, Outcome: string(r.Outcome), FailureClass: string(r.FailureClass),
			Obstacle: r.Obstacle.Detail, Recommendation: r.Recommendation, Summary: r.Summary,
		})
	}
	return out
}

// listFiles is the repository's file list, bounded, for the planner.
func (a *attempt) listFiles() []string {
	var files []string
	_ = filepath.WalkDir(a.wt.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && len(files) < maxListedFiles {
			rel, _ := filepath.Rel(a.wt.Dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	return files
}

// readFiles returns the current content of the plan's files: each whole
// when it fits in what is left of the budget, else an excerpt of the
// definitions the plan and the issue name (edits still apply to the whole
// file). Paths come from the model: they are read only through the
// worktree's confined reader.
func (a *attempt) readFiles(paths []string) []agent.File {
	var out []agent.File
	total := 0
	for i, p := range paths {
		b, err := a.wt.ReadFile(p)
		if err != nil {
			if os.IsNotExist(err) {
				out = append(out, agent.File{Path: p, Missing: true})
			}
			continue
		}
		content, cut := string(b), false
		if room := maxTotalBytes - total; len(content) > room {
			content, cut = a.excerpt(p, content, max(room/(len(paths)-i), minExcerpt)), true
		}
		total += len(content)
		out = append(out, agent.File{Path: p, Content: strings.ToValidUTF8(content, "\uFFFD"), Truncated: cut})
	}
	return out
}
