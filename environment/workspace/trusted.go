package workspace

import (
	"context"
	"fmt"
	"os"

	"github.com/warden-bot/warden/sandbox"
)

// BaseGit runs a read-only git command (ls-tree, cat-file) on the mirror
// that holds BaseTip's objects: package trusted reads the default branch's
// inputs through it, never through the worktree, which a model writes.
func (w *Worktree) BaseGit(ctx context.Context, args ...string) (string, error) {
	return w.m.git(ctx, w.mirror, "", nil, args...)
}

// OnBase reports whether the worktree started at the default branch's head
// (a first attempt) rather than at a PR's head (a follow-up).
func (w *Worktree) OnBase() bool { return w.Head == w.BaseTip }

// BaseCheckout checks the default branch's head out, detached, in a scratch
// worktree beside the task's: a follow-up's setup command runs there, on
// code a writer merged, never on the PR's. remove deletes it.
func (w *Worktree) BaseCheckout(ctx context.Context) (tree sandbox.Tree, remove func(), err error) {
	dir := w.Dir + ".base"
	unlock := w.m.lock(w.mirror)
	defer unlock()
	if _, err := os.Lstat(dir); err == nil {
		w.m.removeLocked(ctx, w.mirror, dir)
	}
	if _, err := w.m.git(ctx, w.mirror, "", nil, "worktree", "add", "--force", "--detach", dir, w.BaseTip); err != nil {
		return sandbox.Tree{}, nil, fmt.Errorf("check out the default branch for setup: %w", err)
	}
	remove = func() {
		unlock := w.m.lock(w.mirror)
		defer unlock()
		w.m.removeLocked(context.WithoutCancel(ctx), w.mirror, dir)
	}
	admin, err := adminOf(w.mirror, dir)
	if err != nil {
		w.m.removeLocked(ctx, w.mirror, dir)
		return sandbox.Tree{}, nil, fmt.Errorf("check out the default branch for setup: %w", err)
	}
	tree = sandbox.Tree{Dir: dir, GitDir: admin, Common: w.mirror}
	return tree, remove, nil
}
