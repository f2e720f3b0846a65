package repoindex

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Bounds: content past maxIndexed is not tokenized, files over maxParsed
// are not parsed for definitions (minified or data files, mostly).
const (
	maxIndexed = 256 << 10
	maxParsed  = 1 << 20
)

// Build indexes the checkout at dir. Files are the ones git tracks (never
// untracked ones, which are not the commit's: the cache keyed by commit
// would hand them to another checkout of it), read without following
// symlinks and never outside dir; commit is recorded as given.
func Build(ctx context.Context, dir, commit string) (*Index, error) {
	return buildCold(ctx, dir, commit, LocalGit(dir))
}

func buildCold(ctx context.Context, dir, commit string, git Git) (*Index, error) {
	start := time.Now()
	paths, err := listFiles(ctx, dir, git)
	if err != nil {
		return nil, err
	}
	files := make([]File, len(paths))
	terms := make([]termCounts, len(paths))
	lits := make([][]string, len(paths))
	idx := make([]int, len(paths))
	for i := range idx {
		idx[i] = i
	}
	indexAll(ctx, dir, paths, idx, files, terms, lits)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := assemble(files, terms, lits)
	x.Version, x.Commit, x.Built = Version, commit, time.Since(start)
	return x, nil
}

func listFiles(ctx context.Context, dir string, git Git) ([]string, error) {
	out, err := git(ctx, "ls-files", "-z", "--cached")
	if err != nil {
		return nil, fmt.Errorf("listing files of %s: %w", dir, err)
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return dedupe(paths), nil
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, p := range s {
		if i == 0 || p != s[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// assemble turns per-file term counts into postings.
func assemble(files []File, terms []termCounts, lits [][]string) *Index {
	x := &Index{Files: files}
	var postings, litFiles [][]uint32
	ids := map[string]int{}
	total := 0
	for fi, tc := range terms {
		total += files[fi].Len
		for k, t := range tc.terms {
			id, ok := ids[t]
			if !ok {
				id = len(x.Terms)
				ids[t] = id
				x.Terms = append(x.Terms, t)
				postings = append(postings, nil)
			}
			postings[id] = append(postings[id], uint32(fi)<<8|uint32(min(tc.tf[k], 255)))
		}
	}
	if len(files) > 0 {
		x.AvgLen = float64(total) / float64(len(files))
	}
	litIDs := map[string]int{}
	for fi, fs := range lits {
		for _, l := range fs {
			id, ok := litIDs[l]
			if !ok {
				id = len(x.Literals)
				litIDs[l] = id
				x.Literals = append(x.Literals, l)
				litFiles = append(litFiles, nil)
			}
			if n := len(litFiles[id]); n == 0 || litFiles[id][n-1] != uint32(fi) {
				litFiles[id] = append(litFiles[id], uint32(fi))
			}
		}
	}
	x.Post, x.PostAt = flatten(postings)
	x.Lit, x.LitAt = flatten(litFiles)
	return x
}

// Definitions parses one file's definitions by its path's language (Go with
// go/parser, the others with the build's parser; none for the rest).
func Definitions(p string, src []byte) []Def {
	if len(src) > maxParsed {
		return nil
	}
	if Language(p) == "go" {
		defs, _ := goDefs(src)
		return defs
	}
	return otherDefs(Language(p), src)
}
