package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/warden-bot/warden/sandbox"
)

// BaseCopy is a second checkout of a task's base commit, for running the
// repository's tests on the base (the baseline) while the task's worktree
// is edited. It is detached: it has no branch and is never pushed.
type BaseCopy struct {
	Dir    string
	SHA    string
	m      *Manager
	mirror string
	gitDir string // recorded from the mirror's side, as for a task's worktree
}

// Tree is the base checkout as Warden recorded it, for the sandbox.
func (b *BaseCopy) Tree() sandbox.Tree {
	return sandbox.Tree{Dir: b.Dir, GitDir: b.gitDir, Common: b.mirror}
}

// BaseCopy checks out w's base commit beside w. With untracked set, the
// files git does not track that w holds now (what `setup:` installed:
// node_modules, a virtualenv, generated code) are copied too, with
// reflinks where the file system has them; call it before any model edit.
func (w *Worktree) BaseCopy(ctx context.Context, untracked bool) (*BaseCopy, error) {
	b := &BaseCopy{Dir: w.Dir + ".base", SHA: w.BaseSHA, m: w.m, mirror: w.mirror}
	unlock := w.m.lock(w.mirror)
	if _, err := os.Lstat(b.Dir); err == nil {
		w.m.removeLocked(ctx, w.mirror, b.Dir)
	}
	_, err := w.m.git(ctx, w.mirror, "", nil, "worktree", "add", "--force", "--detach", b.Dir, b.SHA)
	if err == nil {
		b.gitDir, err = adminOf(w.mirror, b.Dir)
	}
	unlock()
	if err == nil {
		err = b.Tree().Verify()
	}
	if err != nil {
		b.Remove(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("check out base %s: %w", b.SHA, err)
	}
	if !untracked {
		return b, nil
	}
	if err := w.copyUntracked(ctx, b.Dir); err != nil {
		b.Remove(context.WithoutCancel(ctx))
		return nil, err
	}
	return b, nil
}

// copyUntracked copies what git does not track in w (ignored files
// included; a directory wholly untracked as one entry) into dir.
func (w *Worktree) copyUntracked(ctx context.Context, dir string) error {
	out, err := w.git(ctx, "", nil, "ls-files", "--others", "--directory", "-z")
	if err != nil {
		return fmt.Errorf("list untracked files: %w", err)
	}
	for rel := range strings.SplitSeq(out, "\x00") {
		rel = strings.TrimSuffix(rel, "/")
		if rel == "" || rel == ".git" {
			continue
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		cp := exec.CommandContext(ctx, "cp", "-a", "--reflink=auto", filepath.Join(w.Dir, rel), dst)
		if msg, err := cp.CombinedOutput(); err != nil {
			return fmt.Errorf("copy %s to the base checkout: %w: %s", rel, err, msg)
		}
	}
	return nil
}

// Remove deletes the base checkout.
func (b *BaseCopy) Remove(ctx context.Context) {
	unlock := b.m.lock(b.mirror)
	defer unlock()
	b.m.removeLocked(ctx, b.mirror, b.Dir)
}
