package repoindex

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// Update derives the index of the checkout at dir (recorded as commit) from
// base, the index of an ancestor commit: the files that differ from
// base.Commit — in the commits since, or uncommitted — are indexed afresh;
// every other listed file keeps base's entry, its terms and its literals.
// An active repository gets a commit between most tasks, and a commit
// rarely touches more than a few files of thousands.
func Update(ctx context.Context, base *Index, dir, commit string) (*Index, error) {
	x, _, err := update(ctx, base, dir, commit, LocalGit(dir))
	return x, err
}

// update is Update that also says whether the checkout's tracked files
// match HEAD, which it learnt on the way (Open caches only such an index).
func update(ctx context.Context, base *Index, dir, commit string, git Git) (*Index, bool, error) {
	start := time.Now()
	paths, err := listFiles(ctx, dir, git)
	if err != nil {
		return nil, false, err
	}
	ch, err := changedSince(ctx, git, dir, base.Commit)
	if err != nil {
		return nil, false, err
	}
	reuse := make([]int, len(paths)) // base file index, or -1 to index afresh
	var fresh []int
	for i, p := range paths {
		reuse[i] = -1
		if !ch.paths[p] {
			reuse[i] = base.Lookup(p)
		}
		if reuse[i] < 0 {
			fresh = append(fresh, i)
		}
	}
	d := newDeriver(base, len(paths))
	d.indexFresh(ctx, dir, paths, fresh)
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	x := d.assemble(reuse)
	x.Version, x.Commit, x.Built = Version, commit, time.Since(start)
	return x, ch.clean, nil
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
// updated falls back to the cold build. It also says whether the
// checkout's tracked files match HEAD.
func build(ctx context.Context, dir, commit, cacheDir string, git Git) (*Index, bool, error) {
	if base := nearestIndexed(ctx, git, commit, cacheDir); base != nil {
		x, clean, err := update(ctx, base, dir, commit, git)
		if err == nil {
			return x, clean, nil
		}
		slog.Warn("index update failed; building from scratch", "dir", dir, "base", base.Commit, "err", err)
	}
	x, err := buildCold(ctx, dir, commit, git)
	if err != nil {
		return nil, false, err
	}
	return x, clean(ctx, git), nil
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
