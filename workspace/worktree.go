package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// Changes lists every file the worktree changed against its base, with the
// numbers the guards judge.
func (w *Worktree) Changes(ctx context.Context) ([]guards.Change, error) {
	var changes []guards.Change
	err := w.withIndex(ctx, func(env []string) error {
		status, err := w.git(ctx, "", env, "diff", "--no-ext-diff", "--no-textconv", "--cached", "-M", "--name-status", "-z", w.BaseSHA)
		if err != nil {
			return err
		}
		numstat, err := w.git(ctx, "", env, "diff", "--no-ext-diff", "--no-textconv", "--cached", "-M", "--numstat", "-z", w.BaseSHA)
		if err != nil {
			return err
		}
		raw, err := w.git(ctx, "", env, "diff", "--no-ext-diff", "--no-textconv", "--cached", "-M", "--raw", "-z", w.BaseSHA)
		if err != nil {
			return err
		}
		tree, err := w.git(ctx, "", env, "write-tree")
		if err != nil {
			return err
		}
		changes = parseNameStatus(status)
		counts, modes := parseNumstat(numstat), parseRawModes(raw)
		for i := range changes {
			w.fill(ctx, env, &changes[i], counts[changes[i].Path])
			m := modes[changes[i].Path]
			changes[i].OldMode, changes[i].NewMode = m[0], m[1]
			changes[i].Symlink = changes[i].Symlink || m[1] == guards.ModeSymlink
		}
		// Files too big to hash are changes all the same, judged by size.
		for _, h := range w.huge {
			c := guards.Change{Path: h.path, Status: guards.Added, Size: h.size, Binary: true}
			if _, err := w.git(ctx, "", nil, "cat-file", "-e", w.BaseSHA+":"+h.path); err == nil {
				c.Status = guards.Modified
			}
			changes = append(changes, c)
		}
		w.judged = strings.TrimSpace(tree)
		return nil
	})
	return changes, err
}

type numbers struct {
	added, deleted int
	binary         bool
}

func parseNameStatus(s string) []guards.Change {
	f := strings.Split(strings.TrimSuffix(s, "\x00"), "\x00")
	var out []guards.Change
	for i := 0; i < len(f) && f[i] != ""; {
		code := f[i]
		c := guards.Change{}
		switch code[0] {
		case 'R', 'C':
			c.Status, c.OldPath, c.Path = guards.Renamed, f[i+1], f[i+2]
			i += 3
		default:
			c.Path = f[i+1]
			c.Status = map[byte]guards.Status{'A': guards.Added, 'D': guards.Deleted}[code[0]]
			if c.Status == "" {
				c.Status = guards.Modified
			}
			i += 2
		}
		out = append(out, c)
	}
	return out
}

// parseNumstat reads `--numstat -z`: "add\tdel\tpath\0" or, for renames,
// "add\tdel\t\0old\0new\0".
func parseNumstat(s string) map[string]numbers {
	out := map[string]numbers{}
	f := strings.Split(s, "\x00")
	for i := 0; i < len(f); i++ {
		parts := strings.SplitN(f[i], "\t", 3)
		if len(parts) != 3 {
			continue
		}
		path := parts[2]
		if path == "" && i+2 < len(f) {
			path = f[i+2]
			i += 2
		}
		a, errA := strconv.Atoi(parts[0])
		d, _ := strconv.Atoi(parts[1])
		out[path] = numbers{added: a, deleted: d, binary: errA != nil}
	}
	return out
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
		for _, l := range strings.Split(patch, "\n") {
			if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
				c.AddedText = append(c.AddedText, l[1:])
			}
		}
	}
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
