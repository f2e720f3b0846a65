package repoindex

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
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
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	defer root.Close()
	files := make([]File, len(paths))
	terms := make([]map[string]int, len(paths))
	lits := make([][]string, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				files[i], terms[i], lits[i] = indexFile(root, paths[i])
			}
		}()
	}
	for i := range paths {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
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

// indexFile reads one file and returns its entry, its term counts and its
// literal fragments. An unreadable file, or anything but a regular file (a
// symlink, a submodule), is kept by path alone.
func indexFile(root *os.Root, p string) (File, map[string]int, []string) {
	f := File{Path: p, Lang: Language(p)}
	src, size, err := readBounded(root, filepath.FromSlash(p))
	if err != nil {
		return f, pathTerms(p, nil), nil
	}
	f.Size = size
	head := src
	if len(head) > 8192 {
		head = head[:8192]
	}
	f.Kind = classify(p, head)
	if f.Kind == Binary {
		return f, pathTerms(p, nil), nil
	}
	if int64(len(src)) < size { // only its head was read: kept by path and size
		f.Kind = Binary
		return f, pathTerms(p, nil), nil
	}
	f.Lines = bytes.Count(src, []byte("\n")) + 1
	var strs []string
	if len(src) <= maxParsed && f.Kind != Vendored {
		switch f.Lang {
		case "go":
			f.Defs, strs = goDefs(src)
		default:
			f.Defs = otherDefs(f.Lang, src)
		}
	}
	text := src
	if len(text) > maxIndexed {
		text = text[:maxIndexed]
	}
	if strs == nil && f.Kind != Vendored && f.Kind != Generated {
		strs = quotedStrings(string(text))
	}
	tf := pathTerms(p, f.Defs)
	for _, t := range Tokenize(string(text)) {
		tf[t]++
	}
	for _, n := range tf {
		f.Len += n
	}
	var frags []string
	for _, s := range strs {
		frags = append(frags, LiteralFragments(s)...)
	}
	return f, tf, frags
}

// pathTerms weighs the path's words and the definitions' names above body
// text: a file named for, or defining, what the issue names is likelier to
// be the one to change than one that merely mentions it.
func pathTerms(p string, defs []Def) map[string]int {
	tf := map[string]int{}
	for _, t := range Tokenize(strings.NewReplacer("/", " ", ".", " ", "-", " ").Replace(p)) {
		tf[t] += 3
	}
	for _, d := range defs {
		for _, t := range Tokenize(d.Name) {
			tf[t] += 2
		}
	}
	return tf
}

// assemble turns per-file term counts into postings.
func assemble(files []File, terms []map[string]int, lits [][]string) *Index {
	x := &Index{Files: files}
	var postings, litFiles [][]uint32
	ids := map[string]int{}
	total := 0
	for fi, tf := range terms {
		total += files[fi].Len
		keys := make([]string, 0, len(tf))
		for t := range tf {
			keys = append(keys, t)
		}
		sort.Strings(keys)
		for _, t := range keys {
			id, ok := ids[t]
			if !ok {
				id = len(x.Terms)
				ids[t] = id
				x.Terms = append(x.Terms, t)
				postings = append(postings, nil)
			}
			postings[id] = append(postings[id], uint32(fi)<<8|uint32(min(tf[t], 255)))
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

// maxRead is the most of one file the index reads: a larger one (a build
// artefact a setup command left, a 1 GiB file a command wrote) is read no
// further than its head, its size taken from stat.
const maxRead = 8 << 20

// readBounded reads p under root only when it is a regular file (root
// refuses any path that leaves it, Lstat refuses a symlink itself): whole
// when it is at most maxRead bytes, else its first 8 KiB; size is the
// file's size as Lstat gives it, read before any byte.
func readBounded(root *os.Root, p string) (src []byte, size int64, err error) {
	st, err := root.Lstat(p)
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", p)
	}
	f, err := root.Open(p)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	n := st.Size()
	if n > maxRead {
		n = 8192
	}
	src, err = io.ReadAll(io.LimitReader(f, n))
	return src, st.Size(), err
}
