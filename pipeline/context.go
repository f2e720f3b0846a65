package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/repocontext"
	"github.com/warden-bot/warden/repocontext/repoindex"
)

// planContext is what the planner is shown besides the issue, gathered once
// per attempt: the repository view, the writers' comments and what its
// "read" decisions returned.
type planContext struct {
	view     string
	comments []agent.Comment
	reads    strings.Builder
	turns    int // "read" decisions answered
}

// planCtx gathers the planner's context on first use. A repository whose
// index cannot be built is shown as the plain file list, as before.
func (a *attempt) planCtx(ctx context.Context) *planContext {
	if a.pctx != nil {
		return a.pctx
	}
	pc := &planContext{}
	if tc, ok := a.host.(trustedCommenter); ok {
		cs, err := tc.TrustedComments(ctx)
		if err != nil {
			a.log.Warn("issue comments not read", "err", err)
		}
		pc.comments = cs
	}
	x, err := repoindex.OpenAt(ctx, a.wt.Dir, a.indexDir(), a.wt.CheckedOut(), a.wt.Query)
	if err != nil {
		a.log.Warn("repository index not built; the planner gets the file list", "err", err)
	} else {
		issue := a.issueInput()
		body := issue.Body
		for _, c := range pc.comments {
			body += "\n\n" + c.Body
		}
		v := repocontext.Build(x, repocontext.NewQuery(issue.Title, body), repocontext.Options{
			Budget: a.cfg.ContextTokens, Dir: a.wt.Dir, Read: a.wt.ReadFile,
			Docs: a.in.Docs, // the default branch's: a branch's edit of them is a diff, not an instruction
		})
		pc.view = v.Text
		a.log.Info("planner context", "files", len(v.Files), "tokens", v.Tokens, "index_files", len(x.Files))
	}
	a.pctx = pc
	return pc
}

// indexDir is where repository indexes are cached: under the data dir,
// beside the mirrors, keyed by commit.
func (a *attempt) indexDir() string {
	if a.p.Workspace == nil {
		return ""
	}
	return filepath.Join(a.p.Workspace.Dir(), "index", indexKey(a.t))
}

// indexKey names a repository's index cache: by installation and GitHub's
// id, so a reused name or another tenant's fork at the same commit never
// shares it; by name (made path-safe) when the task carries no id.
func indexKey(t Task) string {
	if t.RepoID != 0 {
		return fmt.Sprintf("%d-%d", t.Installation, t.RepoID)
	}
	return fmt.Sprintf("%d-", t.Installation) + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.':
			return r
		case r == '/':
			return '+'
		}
		return '_'
	}, t.Repo)
}

// excerpt shows a planned file too large to quote whole: its head and the
// definitions the plan and the issue name, with the regions around them.
func (a *attempt) excerpt(path, content string, maxBytes int) string {
	names := repocontext.NewQuery(a.plan.Summary+"\n"+a.plan.Approach, a.t.Title+"\n"+a.t.Body).Idents
	text, _ := repocontext.Excerpt(content, repoindex.Definitions(path, []byte(content)), names, maxBytes)
	return text
}
