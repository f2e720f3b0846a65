package workspace

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// privateIndex is the file name, in the worktree's administrative directory
// (<mirror>/worktrees/<name>), of the index that diffs and change lists are
// computed with. Living there, it goes with the worktree when git removes or
// prunes it.
const privateIndex = "warden-index"

// withIndex runs fn with an index holding base + everything in the worktree
// (tracked, untracked, deleted), so diffs see exactly what is on disk.
//
// The index is the worktree's own private one, kept between calls: `read-tree
// --reset` sets it to the base while keeping the stat data of unchanged
// entries (plain -m refuses when the worktree differs from the index), so
// `add -A` hashes only what changed. A fresh index per call (as
// before) made every call hash the whole tree: on a 5,000-file repository
// that was most of the Implement, Security and Review stages' own time.
//
// A file over MaxHashed is left out of the index, unread (its size is
// known from stat): hashing it would cost git its bytes and the mirror a
// copy of them. fn learns of those files through w.huge.
func (w *Worktree) withIndex(ctx context.Context, fn func(env []string) error) error {
	w.indexMu.Lock()
	defer w.indexMu.Unlock()
	idx, done, err := w.indexFile()
	if err != nil {
		return err
	}
	defer done()
	env := []string{"GIT_INDEX_FILE=" + idx}
	// The walk for huge files reads only the worktree, read-tree only the
	// index: on a big tree each takes tens of milliseconds, so they overlap.
	huge := make(chan []hugeFile, 1)
	go func() { huge <- hugeFiles(w.Dir) }()
	_, err = w.git(ctx, "", env, "read-tree", "--reset", w.BaseSHA)
	w.huge = <-huge
	if err != nil {
		return err
	}
	add := []string{"add", "-A"}
	if len(w.huge) > 0 {
		add = append(add, "--", ".")
		for _, h := range w.huge {
			add = append(add, ":(exclude,literal)"+h.path)
		}
	}
	if _, err := w.git(ctx, "", env, add...); err != nil {
		return err
	}
	return fn(env)
}

// indexFile is the private index, seeded on first use with a copy of the
// worktree's own index (whose stat data the checkout just wrote). When the
// administrative directory cannot be found it falls back to a throwaway
// index in the manager's home, removed by done.
func (w *Worktree) indexFile() (idx string, done func(), err error) {
	if admin := w.gitDir; admin != "" {
		idx = filepath.Join(admin, privateIndex)
		// indexMu is held: no git command of ours uses the index now, so a
		// lock file is what a killed command (a canceled stage) left behind.
		_ = os.Remove(idx + ".lock")
		if _, err := os.Stat(idx); errors.Is(err, fs.ErrNotExist) {
			if err := copyFile(filepath.Join(admin, "index"), idx); err != nil {
				_ = os.Remove(idx) // read-tree starts from nothing instead
			}
		}
		return idx, func() {}, nil
	}
	f, err := os.CreateTemp(w.m.home, "index-")
	if err != nil {
		return "", nil, err
	}
	f.Close()
	os.Remove(f.Name()) // git wants a missing or valid index, not an empty file
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// MaxHashed is the largest file Warden lets git hash into the index.
const MaxHashed = 32 << 20

type hugeFile struct {
	path string // slash-separated, relative to the worktree
	size int64
}

// hugeFiles lists the regular files over MaxHashed, by stat alone.
func hugeFiles(dir string) []hugeFile {
	var out []hugeFile
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d == nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" && filepath.Dir(p) == dir {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Size() > MaxHashed {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, hugeFile{path: filepath.ToSlash(rel), size: fi.Size()})
		}
		return nil
	})
	return out
}
