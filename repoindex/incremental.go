package repoindex

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// Update derives the index of the checkout at dir (recorded as commit) from
// base, the index of an ancestor commit: the files that differ from
// base.Commit — `git diff --name-status` against the worktree, so
// uncommitted changes count — and the untracked ones are indexed afresh;
// every other listed file keeps base's entry, its terms and its literals.
// An active repository gets a commit between most tasks, and a commit
// rarely touches more than a few files of thousands.
func Update(ctx context.Context, base *Index, dir, commit string) (*Index, error) {
	return update(ctx, base, dir, commit, LocalGit(dir))
}

func update(ctx context.Context, base *Index, dir, commit string, git Git) (*Index, error) {
	start := time.Now()
	paths, err := listFiles(ctx, dir, git)
	if err != nil {
		return nil, err
	}
	changed, err := changedSince(ctx, git, dir, base.Commit)
	if err != nil {
		return nil, err
	}
	reuse := make([]int, len(paths)) // base file index, or -1 to index afresh
	var fresh []int
	for i, p := range paths {
		reuse[i] = -1
		if !changed[p] {
			reuse[i] = base.Lookup(p)
		}
		if reuse[i] < 0 {
			fresh = append(fresh, i)
		}
	}
	d := newDeriver(base, len(paths))
	d.indexFresh(ctx, dir, paths, fresh)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := d.assemble(reuse)
	x.Version, x.Commit, x.Built = Version, commit, time.Since(start)
	return x, nil
}

// changedSince lists the paths that differ between commit and the worktree
// (added, modified, deleted, type-changed; renames as a deletion and an
// addition) and the untracked files git does not ignore.
func changedSince(ctx context.Context, git Git, dir, commit string) (map[string]bool, error) {
	if commit == "" {
		return nil, fmt.Errorf("updating the index of %s: the base index names no commit", dir)
	}
	diff, err := git(ctx, "diff", "--name-status", "-z", "--no-renames", commit, "--")
	if err != nil {
		return nil, fmt.Errorf("changes of %s since %s: %w", dir, commit, err)
	}
	untracked, err := git(ctx, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("untracked files of %s: %w", dir, err)
	}
	out := map[string]bool{}
	fields := strings.Split(diff, "\x00")
	for i := 0; i+1 < len(fields); i += 2 { // status, path
		out[fields[i+1]] = true
	}
	for _, p := range strings.Split(untracked, "\x00") {
		if p != "" {
			out[p] = true
		}
	}
	return out, nil
}

// deriver holds what a new index takes from its base and from the files
// indexed afresh.
type deriver struct {
	base  *Index
	files []File       // fresh files' entries, by listing index
	terms []termCounts // fresh files' term counts
	lits  [][]string   // fresh files' literal fragments
}

func newDeriver(base *Index, n int) *deriver {
	return &deriver{base: base, files: make([]File, n), terms: make([]termCounts, n), lits: make([][]string, n)}
}

// indexFresh indexes the listing's files at idx.
func (d *deriver) indexFresh(ctx context.Context, dir string, paths []string, idx []int) {
	indexAll(ctx, dir, paths, idx, d.files, d.terms, d.lits)
}

// ancestorDepth is how far back Open looks for an indexed ancestor: beyond
// it the changed files are many and a cold build is as quick.
const ancestorDepth = 64

// build is Open's build: from the nearest ancestor of commit with an index
// in cacheDir when there is one, else cold. A base that cannot be read or
// updated falls back to the cold build.
func build(ctx context.Context, dir, commit, cacheDir string, git Git) (*Index, error) {
	if base := nearestIndexed(ctx, git, commit, cacheDir); base != nil {
		x, err := update(ctx, base, dir, commit, git)
		if err == nil {
			return x, nil
		}
		slog.Warn("index update failed; building from scratch", "dir", dir, "base", base.Commit, "err", err)
	}
	return buildCold(ctx, dir, commit, git)
}

// nearestIndexed loads the cached index of commit's nearest ancestor (within
// ancestorDepth commits, first-parent order as rev-list gives it); nil if
// none is cached.
func nearestIndexed(ctx context.Context, git Git, commit, cacheDir string) *Index {
	if cacheDir == "" || commit == "" {
		return nil
	}
	out, err := git(ctx, "rev-list", "--max-count="+strconv.Itoa(ancestorDepth), commit)
	if err != nil {
		return nil
	}
	for _, c := range strings.Fields(out)[1:] {
		file := cacheFile(cacheDir, c)
		if _, err := os.Stat(file); err != nil {
			continue
		}
		if x, err := Load(file); err == nil && x.Version == Version && x.Commit == c {
			return x
		}
	}
	return nil
}
