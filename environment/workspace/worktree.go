package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-bot/warden/guards"
)

// ErrNothingToCommit means the worktree equals its base.
var ErrNothingToCommit = errors.New("nothing to commit")

// Diff is the unified diff of the worktree against its base.
func (w *Worktree) Diff(ctx context.Context) (string, error) {
	var out string
	err := w.withIndex(ctx, func(env []string) error {
		var err error
		out, err = w.git(ctx, "", env, "diff", "--no-ext-diff", "--no-textconv", "--cached", "-M", "--no-color", w.BaseSHA)
		return err
	})
	return out, err
}

// JudgedDiff is the unified diff of the tree the guards last judged (the
// one Commit commits) against the base, read from the two trees alone:
// what a command changed on disk since is not in it, as it is not in the
// commit. Without a tree judged against the current base it is Diff.
func (w *Worktree) JudgedDiff(ctx context.Context) (string, error) {
	if w.judged == "" || w.judgedOn != w.BaseSHA {
		return w.Diff(ctx)
	}
	return w.git(ctx, "", nil, "diff", "--no-ext-diff", "--no-textconv", "-M", "--no-color", w.BaseSHA, w.judged)
}

// Changes lists every file the worktree changed against its base, with the
// numbers the guards judge, and records the tree judged (Commit commits
// it). A tree judged before against the same base is not read again.
func (w *Worktree) Changes(ctx context.Context) ([]guards.Change, error) {
	var changes []guards.Change
	err := w.withIndex(ctx, func(env []string) error {
		out, err := w.git(ctx, "", env, "write-tree")
		if err != nil {
			return err
		}
		tree := strings.TrimSpace(out)
		var ok bool
		if changes, ok = w.remembered(tree); !ok {
			if changes, err = w.readChanges(ctx, env); err != nil {
				return err
			}
			w.remember(tree, changes)
		}
		// Files too big to hash are changes all the same, judged by size.
		for _, h := range w.huge {
			c := guards.Change{Path: h.path, Status: guards.Added, Size: h.size, Binary: true}
			if _, err := w.git(ctx, "", nil, "cat-file", "-e", w.BaseSHA+":"+h.path); err == nil {
				c.Status = guards.Modified
			}
			changes = append(changes, c)
		}
		w.judged, w.judgedOn = tree, w.BaseSHA
		return nil
	})
	return changes, err
}

type numbers struct {
	added, deleted int
	binary         bool
}

func (w *Worktree) fill(ctx context.Context, env []string, c *guards.Change, n numbers) {
	c.Added, c.Deleted, c.Binary = n.added, n.deleted, n.binary
	old := c.Path
	if c.OldPath != "" {
		old = c.OldPath
	}
	if c.Status != guards.Added {
		if blob, err := w.git(ctx, "", nil, "cat-file", "blob", w.BaseSHA+":"+old); err == nil {
			c.OldLines = countLines(blob)
		}
	}
	if c.Status == guards.Deleted {
		return
	}
	p := filepath.Join(w.Dir, filepath.FromSlash(c.Path))
	fi, err := os.Lstat(p)
	if err == nil {
		c.Size = fi.Size()
		c.Symlink = fi.Mode()&os.ModeSymlink != 0
	}
	if err == nil && fi.Mode().IsRegular() {
		// Counted as it streams: a 1 GiB file costs what a small one does.
		if n, err := countFileLines(p); err == nil {
			c.NewLines = n
		}
	}
	if !c.Binary && c.Size <= MaxRead {
		patch, _ := w.git(ctx, "", env, "diff", "--no-ext-diff", "--no-textconv", "--cached", "-U0", "--no-color", w.BaseSHA, "--", c.Path)
		c.AddedText = addedLines(patch)
	}
}

// addedLines are the lines a -U0 patch adds: every "+" line after the
// first hunk header. The "+++ b/…" header comes before it; an added line
// that itself starts with "++" is an added line all the same, scanned for
// secrets like any other.
func addedLines(patch string) []string {
	var out []string
	inHunk := false
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case inHunk && strings.HasPrefix(l, "+"):
			out = append(out, l[1:])
		}
	}
	return out
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// PushOnto pushes the judged commit only if the remote branch is still at
// expect: a push by anyone else since Warden read the head is never
// overwritten. Like Push, it reads the branch back.
func (w *Worktree) PushOnto(ctx context.Context, remoteURL, token, expect string) error {
	sha, err := w.committed(ctx)
	if err != nil {
		return err
	}
	ref := "refs/heads/" + w.Branch
	lease := "--force-with-lease=" + ref + ":" + expect
	if _, err := w.remote(ctx, remoteURL, token, nil, "push", lease, "--quiet", "--no-verify", remoteURL, sha+":"+ref); err != nil {
		return err
	}
	return w.readBack(ctx, remoteURL, token, ref, sha)
}

// Reset throws away every change in the worktree.
func (w *Worktree) Reset(ctx context.Context) error {
	if _, err := w.git(ctx, "", nil, "reset", "--hard", "--quiet", w.Head); err != nil {
		return err
	}
	_, err := w.git(ctx, "", nil, "clean", "-fdq")
	return err
}

// ReadFile reads a file of the worktree; rel comes from the model, so it is
// vetted and symlinks may not lead out. A file over MaxRead is refused
// (*ErrTooLarge) without being read.
func (w *Worktree) ReadFile(rel string) ([]byte, error) {
	p, err := guards.ResolveInside(w.Dir, rel, guards.OSLinker{})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return readSmall(p, MaxRead)
}

// Unchanged reports whether the worktree still equals Head.
func (w *Worktree) Unchanged(ctx context.Context) (bool, error) {
	var out string
	err := w.withIndex(ctx, func(env []string) error {
		var err error
		out, err = w.git(ctx, "", env, "diff", "--no-ext-diff", "--no-textconv", "--cached", "--name-only", w.Head)
		return err
	})
	return strings.TrimSpace(out) == "" && len(w.huge) == 0, err
}
