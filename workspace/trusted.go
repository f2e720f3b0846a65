package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/warden-bot/warden/sandbox"
)

// BaseFile reads rel as the default branch's head has it (BaseTip), from
// the mirror's objects: what a writer merged, never what a model wrote on
// the task's branch. A file the base lacks is fs.ErrNotExist.
func (w *Worktree) BaseFile(ctx context.Context, rel string) ([]byte, error) {
	spec := w.BaseTip + ":" + strings.TrimPrefix(rel, "/")
	// cat-file blob: the raw object, no textconv or filter runs. Only when
	// it fails is the file's existence asked (one process when it exists).
	out, err := w.m.git(ctx, w.mirror, "", nil, "cat-file", "blob", spec)
	if err == nil {
		return []byte(out), nil
	}
	if _, eerr := w.m.git(ctx, w.mirror, "", nil, "cat-file", "-e", spec); eerr != nil {
		return nil, fmt.Errorf("%s at %s: %w", rel, w.BaseTip, fs.ErrNotExist)
	}
	return nil, fmt.Errorf("read %s at %s: %w", rel, w.BaseTip, err)
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
