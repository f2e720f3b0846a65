package repoindex

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
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
	x, _, err := update(ctx, base.Commit, func() (*Index, error) { return base, nil }, dir, commit, LocalGit(dir))
	return x, err
}

// update is Update from the index of baseCommit that load returns, run
// while git lists the changes (decoding a cached index takes as long as
// they do). It also says whether the checkout's tracked files match HEAD,
// which it learnt on the way (Open caches only such an index).
func update(ctx context.Context, baseCommit string, load func() (*Index, error), dir, commit string, git Git) (*Index, bool, error) {
	start := time.Now()
	type loaded struct {
		x   *Index
		err error
	}
	got := make(chan loaded, 1)
	go func() {
		x, err := load()
		got <- loaded{x, err}
	}()
	paths, err := listFiles(ctx, dir, git)
	if err != nil {
		return nil, false, err
	}
	ch, err := changedSince(ctx, git, dir, baseCommit)
	if err != nil {
		return nil, false, err
	}
	b := <-got
	if b.err != nil {
		return nil, false, b.err
	}
	base := b.x
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
	indexAll(ctx, dir, paths, largestFirst(dir, paths, idx), d.files, d.terms, d.lits, nil)
}

// largestFirst orders a few files by size, largest first, so that the
// cores finish together: in path order the largest of a commit's files
// (ruff's 500 KB Rust sources) often came last, to one core while the
// other idled. A file that cannot be stat'ed sorts last.
func largestFirst(dir string, paths []string, idx []int) []int {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return idx
	}
	defer root.Close()
	size := make(map[int]int64, len(idx))
	for _, i := range idx {
		if st, err := root.Lstat(filepath.FromSlash(paths[i])); err == nil {
			size[i] = st.Size()
		}
	}
	out := slices.Clone(idx)
	slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	return out
}

// ancestorDepth is how far back Open looks for an indexed ancestor: beyond
// it the changed files are many and a cold build is as quick.
const ancestorDepth = 64

// build is Open's build: from the nearest ancestor of commit with an index
// in cacheDir when there is one, else cold. A base that cannot be read or
// updated falls back to the cold build. It also says whether the
// checkout's tracked files match HEAD.
func build(ctx context.Context, dir, commit, cacheDir string, git Git) (*Index, bool, error) {
	if c := nearestIndexed(ctx, git, commit, cacheDir); c != "" {
		load := func() (*Index, error) {
			touch(CacheFile(cacheDir, c))
			return loadIndexOf(CacheFile(cacheDir, c), c)
		}
		x, clean, err := update(ctx, c, load, dir, commit, git)
		if err == nil {
			return x, clean, nil
		}
		slog.Warn("index update failed; building from scratch", "dir", dir, "base", c, "err", err)
	}
	x, err := buildCold(ctx, dir, commit, git)
	if err != nil {
		return nil, false, err
	}
	return x, clean(ctx, git), nil
}

// nearestIndexed is commit's nearest ancestor (within ancestorDepth
// commits, first-parent order as rev-list gives it) with an index in
// cacheDir; "" if none.
func nearestIndexed(ctx context.Context, git Git, commit, cacheDir string) string {
	if cacheDir == "" || commit == "" {
		return ""
	}
	out, err := git(ctx, "rev-list", "--max-count="+strconv.Itoa(ancestorDepth), commit)
	if err != nil {
		return ""
	}
	for _, c := range strings.Fields(out)[1:] {
		if _, err := os.Stat(CacheFile(cacheDir, c)); err == nil {
			return c
		}
	}
	return ""
}

// loadIndexOf loads the cached index of commit from file.
func loadIndexOf(file, commit string) (*Index, error) {
	x, err := Load(file)
	if err != nil {
		return nil, err
	}
	if x.Version != Version || x.Commit != commit {
		return nil, fmt.Errorf("%s holds the index of %s (version %d), not of %s", file, x.Commit, x.Version, commit)
	}
	return x, nil
}
