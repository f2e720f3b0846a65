package repoindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// termCounts is one file's terms, sorted, and how often each occurs.
type termCounts struct {
	terms []string
	tf    []int
}

// indexer indexes files one after another, reusing its term map (growing
// a fresh map per file was a tenth of a cold build) and the directory it
// last read in: a path opened under the checkout's root is resolved one
// directory at a time, twice per file (its Lstat, its open).
type indexer struct {
	root   *os.Root
	tf     map[string]int
	dir    string
	dirFD  *os.Root
	dirErr error
}

// bigMap is the size past which the map is dropped rather than cleared:
// clearing costs its capacity, which one large file would leave behind
// for every small one after it.
const bigMap = 1 << 12

// indexAll indexes the files paths[i] for i in idx on every core, writing
// each one's entry, terms and literal fragments at i, then sending i on
// done (when not nil; it must have room for all). A file that cannot be
// opened under dir is kept by path alone, as an unreadable one is.
func indexAll(ctx context.Context, dir string, paths []string, idx []int, files []File, terms []termCounts, lits [][]string, done chan<- int) {
	root, err := os.OpenRoot(dir) // no symlink followed, nothing outside dir
	if err != nil {
		for _, i := range idx {
			files[i], terms[i] = File{Path: paths[i], Lang: Language(paths[i])}, pathOnly(paths[i])
			if done != nil {
				done <- i
			}
		}
		return
	}
	defer root.Close()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), max(len(idx), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix := &indexer{root: root}
			defer ix.close()
			for i := range next {
				files[i], terms[i], lits[i] = ix.file(paths[i])
				if done != nil {
					done <- i
				}
			}
		}()
	}
	for _, i := range idx {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
}

// file reads one file and returns its entry, its term counts and its
// literal fragments. An unreadable file, or anything but a regular file (a
// symlink, a submodule), is kept by path alone.
func (ix *indexer) file(p string) (File, termCounts, []string) {
	f := File{Path: p, Lang: Language(p)}
	src, size, err := ix.read(p)
	if err != nil {
		return f, pathOnly(p), nil
	}
	f.Size = size
	f.Kind = classify(p, src[:min(len(src), 8192)])
	if f.Kind == Binary {
		return f, pathOnly(p), nil
	}
	if int64(len(src)) < size { // only its head was read: kept by path and size
		f.Kind = Binary
		return f, pathOnly(p), nil
	}
	f.Lines = bytes.Count(src, []byte("\n")) + 1
	var strs []string
	if len(src) <= maxParsed && f.Kind != Vendored {
		switch f.Lang {
		case "go":
			f.Defs, strs = goDefs(src)
		default:
			f.Defs = scanDefs(f.Lang, src) // names for ranking; Definitions for shown files
		}
	}
	text := string(src[:min(len(src), maxIndexed)])
	if strs == nil && f.Kind != Vendored && f.Kind != Generated {
		strs = quotedStrings(text)
	}
	tc := ix.count(p, f.Defs, text)
	for _, n := range tc.tf {
		f.Len += n
	}
	var frags []string
	for _, s := range strs {
		frags = append(frags, LiteralFragments(s)...)
	}
	return f, tc, frags
}

// count is the terms of the path, the definitions' names and the text.
func (ix *indexer) count(p string, defs []Def, text string) termCounts {
	if ix.tf == nil {
		ix.tf = make(map[string]int, 256)
	}
	addPathTerms(ix.tf, p, defs)
	eachTerm(text, func(t string) { ix.tf[t]++ })
	tc := sorted(ix.tf)
	if len(ix.tf) > bigMap {
		ix.tf = nil
	} else {
		clear(ix.tf)
	}
	return tc
}

// pathOnly is the terms of a file known by its path alone.
func pathOnly(p string) termCounts {
	tf := map[string]int{}
	addPathTerms(tf, p, nil)
	return sorted(tf)
}

func sorted(tf map[string]int) termCounts {
	type entry struct {
		t string
		n int
	}
	es := make([]entry, 0, len(tf))
	for t, n := range tf {
		es = append(es, entry{t, n})
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.t, b.t) })
	tc := termCounts{terms: make([]string, len(es)), tf: make([]int, len(es))}
	for i, e := range es {
		tc.terms[i], tc.tf[i] = e.t, e.n
	}
	return tc
}

// addPathTerms weighs the path's words and the definitions' names above
// body text: a file named for, or defining, what the issue names is
// likelier to be the one to change than one that merely mentions it.
func addPathTerms(tf map[string]int, p string, defs []Def) {
	eachTerm(strings.NewReplacer("/", " ", ".", " ", "-", " ").Replace(p), func(t string) { tf[t] += 3 })
	for _, d := range defs {
		eachTerm(d.Name, func(t string) { tf[t] += 2 })
	}
}

// read reads p (slash-separated, under the root) through its directory,
// opened under the root once for the files of it that come in a row.
func (ix *indexer) read(p string) ([]byte, int64, error) {
	dir, base := path.Split(p)
	if dir != ix.dir || ix.dirFD == nil && ix.dirErr == nil {
		ix.close()
		ix.dir = dir
		ix.dirFD, ix.dirErr = ix.root, nil
		if dir != "" {
			ix.dirFD, ix.dirErr = ix.root.OpenRoot(filepath.FromSlash(strings.TrimSuffix(dir, "/")))
		}
	}
	if ix.dirErr != nil {
		return nil, 0, ix.dirErr
	}
	return readBounded(ix.dirFD, base)
}

func (ix *indexer) close() {
	if ix.dirFD != nil && ix.dirFD != ix.root {
		ix.dirFD.Close()
	}
	ix.dirFD, ix.dirErr = nil, nil
}

// maxRead is the most of one file the index reads: a larger one (a build
// artefact a setup command left, a 1 GiB file a command wrote) is read no
// further than its head, its size taken from stat.
const maxRead = 8 << 20

// readBounded reads p under root only when it is a regular file (root
// refuses any path that leaves it, Lstat refuses a symlink itself): whole
// when it is at most maxRead bytes, else its first 8 KiB; size is the
// file's size as Lstat gives it, read before any byte. A file that shrank
// since is returned as far as it goes.
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
	src = make([]byte, n) // one allocation: ReadAll grew its buffer a dozen times for a large file
	k, err := io.ReadFull(f, src)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return src[:k], st.Size(), err
}
