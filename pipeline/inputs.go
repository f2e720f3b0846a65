package pipeline

import (
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
	maxFileBytes   = 20 << 10
	maxTotalBytes  = 60 << 10
)

func (a *attempt) issueInput() agent.IssueInput {
	return agent.IssueInput{Repo: a.t.Repo, Number: a.t.Issue, Title: a.t.Title, Body: a.t.Body}
}

func (a *attempt) limitsInput() agent.LimitsInput {
	return agent.LimitsInput{
		Mode: a.t.Mode, MaxFiles: a.policy.MaxFiles, MaxLines: a.policy.MaxLines,
		Protected: a.policy.Limits.Protected, AllowTestChanges: a.policy.AllowTestChanges,
	}
}

func (a *attempt) planInput(feedback string) agent.PlanInput {
	return agent.PlanInput{
		Issue: a.issueInput(), Limits: a.limitsInput(), Tree: a.listFiles(),
		Previous: previous(a.prior), Feedback: feedback,
	}
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

// readFiles returns the current content of the plan's files, bounded. Paths
// come from the model: they are read only through the worktree's confined reader.
func (a *attempt) readFiles(paths []string) []agent.File {
	var out []agent.File
	total := 0
	for _, p := range paths {
		b, err := a.wt.ReadFile(p)
		if err != nil {
			if os.IsNotExist(err) {
				out = append(out, agent.File{Path: p, Missing: true})
			}
			continue
		}
		content, cut := string(b), false
		if len(content) > maxFileBytes {
			content, cut = content[:maxFileBytes], true
		}
		if total+len(content) > maxTotalBytes {
			break
		}
		total += len(content)
		out = append(out, agent.File{Path: p, Content: strings.ToValidUTF8(content, "\uFFFD"), Truncated: cut})
	}
	return out
}
