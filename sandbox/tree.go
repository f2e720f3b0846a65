package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrTreeChanged means a worktree's .git is not the file Warden wrote: the
// tree is refused (the sandbox) or discarded (Warden's own git), never
// followed.
var ErrTreeChanged = errors.New("the worktree's .git is not the file Warden wrote")

// Tree is the worktree an untrusted process runs in, as Warden recorded it
// when it made the worktree: nothing here is read from the worktree.
type Tree struct {
	Dir string // the work tree: the one tree the process may write
	// GitDir is the worktree's administrative git directory
	// (<mirror>/worktrees/<name>), as recorded when Warden's git created
	// it; empty for a directory that is not a git worktree.
	GitDir string
	// Common is the repository GitDir belongs to (the mirror), bound
	// read-only so that git works in the tree and nothing can change it.
	Common string
}

// maxDotGit bounds what is read of a .git file: what git writes is one line.
const maxDotGit = 4096

// DotGit is the content of the .git file git writes into a worktree whose
// administrative directory is gitDir.
func DotGit(gitDir string) string { return "gitdir: " + gitDir + "\n" }

// Verify checks the tree against the record: Dir/.git must be the regular
// file git wrote for GitDir, byte for byte, and GitDir must lie in Common's
// worktrees; a tree without a GitDir must have no .git at all. It reads
// the file's size before its bytes and follows no link.
func (t Tree) Verify() error {
	if !filepath.IsAbs(t.Dir) || filepath.Clean(t.Dir) == "/" {
		return fmt.Errorf("sandbox: the worktree %q is not an absolute directory", t.Dir)
	}
	if fi, err := os.Lstat(t.Dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("sandbox: no worktree %s", t.Dir)
	}
	dotgit := filepath.Join(t.Dir, ".git")
	fi, err := os.Lstat(dotgit)
	if t.GitDir == "" {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("%w: %s has a .git, but Warden recorded no git directory for it", ErrTreeChanged, t.Dir)
	}
	if t.Common == "" || !strings.HasPrefix(t.GitDir, strings.TrimSuffix(t.Common, "/")+"/worktrees/") {
		return fmt.Errorf("sandbox: the git directory %s is not a worktree of %q", t.GitDir, t.Common)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrTreeChanged, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is a %s", ErrTreeChanged, dotgit, kindOf(fi.Mode()))
	}
	want := DotGit(t.GitDir)
	if fi.Size() != int64(len(want)) {
		return fmt.Errorf("%w: %s holds %d bytes", ErrTreeChanged, dotgit, fi.Size())
	}
	f, err := os.OpenFile(dotgit, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrTreeChanged, err)
	}
	defer f.Close()
	got, err := io.ReadAll(io.LimitReader(f, maxDotGit))
	if err != nil || !bytes.Equal(got, []byte(want)) {
		return fmt.Errorf("%w: %s was rewritten", ErrTreeChanged, dotgit)
	}
	return nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	}
	return "special file"
}
