package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/github/gitdb"
)

// LocalCommit describes the commit Commit made, for GitHub's Git Database
// API to make again (gitdb.Create): its tree (the judged tree), parents,
// message, and every path it changes against its first parent's tree, with
// each path's mode. Only a commit whose tree is the judged one is described.
func (w *Worktree) LocalCommit(ctx context.Context) (gitdb.Local, error) {
	sha, err := w.committed(ctx)
	if err != nil {
		return gitdb.Local{}, err
	}
	raw, err := w.git(ctx, "", nil, "cat-file", "commit", sha)
	if err != nil {
		return gitdb.Local{}, fmt.Errorf("read commit %s: %w", sha, err)
	}
	c, err := parseCommit(raw)
	if err != nil {
		return gitdb.Local{}, fmt.Errorf("read commit %s: %w", sha, err)
	}
	if w.judged != "" && c.Tree != w.judged {
		return gitdb.Local{}, fmt.Errorf("commit %s has tree %s, not the judged tree %s", sha, c.Tree, w.judged)
	}
	if len(c.Parents) == 0 {
		return gitdb.Local{}, fmt.Errorf("commit %s has no parent on the remote", sha)
	}
	if c.BaseTree, err = w.treeOf(ctx, c.Parents[0]); err != nil {
		return gitdb.Local{}, err
	}
	if c.Entries, err = w.treeChanges(ctx, c.BaseTree, c.Tree); err != nil {
		return gitdb.Local{}, err
	}
	return c, nil
}

// Blob is a blob of the worktree's repository, raw (no filter runs).
func (w *Worktree) Blob(ctx context.Context, sha string) ([]byte, error) {
	out, err := w.git(ctx, "", nil, "cat-file", "blob", sha)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", sha, err)
	}
	return []byte(out), nil
}

func (w *Worktree) treeOf(ctx context.Context, commit string) (string, error) {
	out, err := w.git(ctx, "", nil, "rev-parse", "--verify", commit+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("read the tree of %s: %w", commit, err)
	}
	return strings.TrimSpace(out), nil
}

// parseCommit reads a raw commit object's tree, parents and message.
func parseCommit(raw string) (gitdb.Local, error) {
	head, msg, ok := strings.Cut(raw, "\n\n")
	if !ok {
		return gitdb.Local{}, fmt.Errorf("no message in the commit object")
	}
	c := gitdb.Local{Message: msg}
	for _, l := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "tree":
			c.Tree = v
		case "parent":
			c.Parents = append(c.Parents, v)
		}
	}
	if c.Tree == "" {
		return gitdb.Local{}, fmt.Errorf("no tree in the commit object")
	}
	return c, nil
}

// treeChanges lists every path that differs between two trees, recursively
// and without rename detection: a rename is a deletion and an addition, as
// a tree entry list says it.
func (w *Worktree) treeChanges(ctx context.Context, from, to string) ([]gitdb.Entry, error) {
	out, err := w.git(ctx, "", nil, "diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", from, to)
	if err != nil {
		return nil, fmt.Errorf("list the changes %s..%s: %w", from, to, err)
	}
	return parseDiffTree(out)
}

// parseDiffTree reads `git diff-tree -r -z` output: a
// ":oldmode newmode oldsha newsha status" record, then the path.
func parseDiffTree(out string) ([]gitdb.Entry, error) {
	var entries []gitdb.Entry
	parts := strings.Split(out, "\x00")
	for i := 0; i+1 < len(parts); i += 2 {
		f := strings.Fields(strings.TrimPrefix(parts[i], ":"))
		if len(f) != 5 {
			return nil, fmt.Errorf("unexpected diff-tree record %q", parts[i])
		}
		e := gitdb.Entry{Path: parts[i+1], Mode: f[1], SHA: f[3]}
		if f[4] == "D" {
			e = gitdb.Entry{Path: parts[i+1], Delete: true}
		}
		entries = append(entries, e)
	}
	return entries, nil
}
