package repoindex

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Open returns the index of the checkout at dir for its HEAD commit, from
// cacheDir (one per repository) when a gob for that commit is there, else
// built — from the nearest cached ancestor's index when there is one
// (Update) — and saved. The
// cache describes the commit: a checkout with uncommitted changes is indexed
// as it is on disk but that index is not saved (checking cleanliness costs a
// stat of every file, so it is done only when building). An empty cacheDir
// disables the cache.
func Open(ctx context.Context, dir, cacheDir string) (*Index, error) {
	commit := head(ctx, dir)
	file := ""
	if cacheDir != "" && commit != "" {
		file = cacheFile(cacheDir, commit)
		if x, err := Load(file); err == nil && x.Version == Version && x.Commit == commit {
			return x, nil
		}
	}
	x, err := build(ctx, dir, commit, cacheDir)
	if err != nil {
		return nil, err
	}
	if file != "" && clean(ctx, dir) {
		if err := x.Save(file); err != nil {
			slog.Warn("index cache not written", "path", file, "err", err)
		}
	}
	return x, nil
}

// cacheFile is where the index of commit is cached: the one place that
// names the key. The caller's cacheDir names the repository (by id and
// installation, pipeline's indexDir); the index holds only the commit's
// tracked files, so the commit and the format's version name the rest.
func cacheFile(cacheDir, commit string) string {
	return filepath.Join(cacheDir, fmt.Sprintf("%s-v%d.gob", commit, Version))
}

// head is the checkout's HEAD commit ("" outside git).
func head(ctx context.Context, dir string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// clean reports whether the checkout's tracked files match HEAD.
func clean(ctx context.Context, dir string) bool {
	st, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	return err == nil && len(bytes.TrimSpace(st)) == 0
}

// Load reads a gob index.
func Load(path string) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var x Index
	if err := gob.NewDecoder(f).Decode(&x); err != nil {
		return nil, fmt.Errorf("decoding index %s: %w", path, err)
	}
	return &x, nil
}

// Save writes the index atomically (a temporary file renamed into place), so
// a concurrent reader never sees half a file.
func (x *Index) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".index-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := gob.NewEncoder(tmp).Encode(x); err != nil {
		tmp.Close()
		return fmt.Errorf("encoding index: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
