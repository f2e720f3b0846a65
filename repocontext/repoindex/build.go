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
	n := len(paths)
	files, terms, lits := make([]File, n), make([]termCounts, n), make([][]string, n)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	// Files are assembled in order as they come in, while the rest are
	// parsed: assembling after the last one had left the other cores idle.
	done := make(chan int, n)
	go func() {
		indexAll(ctx, dir, paths, idx, files, terms, lits, done)
		close(done)
	}()
	a := &assembler{x: &Index{Files: files}, ids: map[string]int{}, litIDs: map[string]int{}}
	ready, next := make([]bool, n), 0
	for i := range done {
		ready[i] = true
		for ; next < n && ready[next]; next++ {
			a.add(next, terms[next], lits[next])
			terms[next], lits[next] = termCounts{}, nil // in the postings now
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := a.finish()
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

// assembler turns per-file term counts and literals, added in file
// order, into postings.
type assembler struct {
	x                  *Index // its Files set, the rest filled in
	ids, litIDs        map[string]int
	postings, litFiles [][]uint32
	total              int
}

func (a *assembler) add(fi int, tc termCounts, lits []string) {
	x := a.x
	a.total += x.Files[fi].Len
	for k, t := range tc.terms {
		id, ok := a.ids[t]
		if !ok {
			// A term is a slice of its file's text: kept as it is, the
			// vocabulary held every file it came from (65 MiB, not 20,
			// on ruff's 11,000 files).
			t = strings.Clone(t)
			id = len(x.Terms)
			a.ids[t] = id
			x.Terms = append(x.Terms, t)
			a.postings = append(a.postings, nil)
		}
		a.postings[id] = append(a.postings[id], uint32(fi)<<8|uint32(min(tc.tf[k], 255)))
	}
	for _, l := range lits {
		id, ok := a.litIDs[l]
		if !ok {
			l = strings.Clone(l)
			id = len(x.Literals)
			a.litIDs[l] = id
			x.Literals = append(x.Literals, l)
			a.litFiles = append(a.litFiles, nil)
		}
		if n := len(a.litFiles[id]); n == 0 || a.litFiles[id][n-1] != uint32(fi) {
			a.litFiles[id] = append(a.litFiles[id], uint32(fi))
		}
	}
}

func (a *assembler) finish() *Index {
	x := a.x
	if len(x.Files) > 0 {
		x.AvgLen = float64(a.total) / float64(len(x.Files))
	}
	x.Post, x.PostAt = flatten(a.postings)
	x.Lit, x.LitAt = flatten(a.litFiles)
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

// ShownDefinitions is f's definitions with exact ranges, for a file a
// context shows: the index's own where they came from a parser (Go), a
// tree-sitter parse of src where the index scanned lines.
func ShownDefinitions(f File, src []byte) []Def {
	if scanners[f.Lang] == nil {
		return f.Defs
	}
	return Definitions(f.Path, src)
}
