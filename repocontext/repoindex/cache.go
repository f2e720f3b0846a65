package repoindex

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Open returns the index of the checkout at dir for its HEAD commit, from
// cacheDir (one per repository) when an index of that commit is there, else
// built — from the nearest cached ancestor's index when there is one
// (Update) — and saved, the cache keeping the keepIndexes most recently
// used. The cache describes the commit: a checkout with uncommitted
// changes is indexed as it is on disk but that index is not saved
// (checking cleanliness costs a stat of every file, so it is done only
// when building). An empty cacheDir disables the cache.
func Open(ctx context.Context, dir, cacheDir string) (*Index, error) {
	return OpenWith(ctx, dir, cacheDir, LocalGit(dir))
}

// Git runs one read-only git command on a checkout and returns its stdout.
// A worktree Warden made passes its own (workspace.Worktree.Query), which
// names the recorded git directory and runs with a neutral configuration;
// LocalGit is for a checkout the operator named (`bot context`).
type Git func(ctx context.Context, args ...string) (string, error)

// LocalGit is git -C dir, as the operator's own git would run it.
func LocalGit(dir string) Git {
	return func(ctx context.Context, args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
		return string(out), err
	}
}

// OpenWith is Open with the checkout's git.
func OpenWith(ctx context.Context, dir, cacheDir string, git Git) (*Index, error) {
	return OpenAt(ctx, dir, cacheDir, "", git)
}

// OpenAt is OpenWith for a caller that may know the checkout's HEAD commit
// (Warden checked it out and has not moved it since): one git process per
// task fewer. The commit keys the cache, so it must be HEAD; "" asks git.
func OpenAt(ctx context.Context, dir, cacheDir, commit string, git Git) (*Index, error) {
	if commit == "" {
		commit = head(ctx, git) // still "" outside git
	}
	file := ""
	if cacheDir != "" && commit != "" {
		file = CacheFile(cacheDir, commit)
		if x, err := loadIndexOf(file, commit); err == nil {
			touch(file)
			return x, nil
		}
	}
	x, clean, err := build(ctx, dir, commit, cacheDir, git)
	if err != nil {
		return nil, err
	}
	if file != "" && clean {
		if err := x.Save(file); err != nil {
			slog.Warn("index cache not written", "path", file, "err", err)
		}
		prune(cacheDir)
	}
	return x, nil
}

// CacheFile is where Open caches the index of commit in cacheDir: the one
// place that names the key. The caller's cacheDir names the repository (by id and
// installation, pipeline's indexDir); the index holds only the commit's
// tracked files, so the commit and the format's version name the rest.
func CacheFile(cacheDir, commit string) string {
	return filepath.Join(cacheDir, fmt.Sprintf("%s-v%d.idx", commit, Version))
}

// head is the checkout's HEAD commit ("" outside git).
func head(ctx context.Context, git Git) string {
	out, err := git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// clean reports whether the checkout's tracked files match HEAD
// (submodules aside: see changedSince).
func clean(ctx context.Context, git Git) bool {
	st, err := git(ctx, "status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all")
	return err == nil && len(strings.TrimSpace(st)) == 0
}

// Load reads a cached index.
func Load(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	x, err := unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("decoding index %s: %w", path, err)
	}
	return x, nil
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
	for _, part := range x.marshal() {
		if _, err := tmp.Write(part); err != nil {
			tmp.Close()
			return fmt.Errorf("writing index: %w", err)
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
