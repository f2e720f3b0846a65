//go:build cgo

package repoindex

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkScanAgreement compares the index's line scanner with
// tree-sitter on real trees (WARDEN_BENCH_SCAN_DIR, by default the
// localization corpus that scripts/localization-corpus.sh materialises):
// per language, the share of tree-sitter's definition names the scanner
// finds in the same file (recall) and of the scanner's that tree-sitter
// has (precision), and tree-sitter's time over the scanner's.
func BenchmarkScanAgreement(b *testing.B) {
	root := os.Getenv("WARDEN_BENCH_SCAN_DIR")
	if root == "" {
		root = "../../test/bench/localization/testdata/trees"
	}
	if _, err := os.Stat(root); err != nil {
		b.Fatalf("no trees at %s (run scripts/localization-corpus.sh or set WARDEN_BENCH_SCAN_DIR): %v", root, err)
	}
	by := map[string]*tally{}
	for range b.N {
		clear(by)
		for _, tree := range onePerRepository(b, root) {
			walkAgreement(tree, by)
		}
	}
	for lang, t := range by {
		b.ReportMetric(float64(t.both)/float64(max(t.ts, 1)), lang+"-recall")
		b.ReportMetric(float64(t.both)/float64(max(t.scan, 1)), lang+"-precision")
		b.ReportMetric(float64(t.tsTime)/float64(max(t.scanTime, 1)), lang+"-treesitter/scan")
	}
}

type tally struct {
	ts, scan, both   int
	tsTime, scanTime time.Duration
}

// onePerRepository is the first tree of each repository under root (the
// corpus has a tree per issue, <owner>-<name>-<issue>).
func onePerRepository(b *testing.B, root string) []string {
	entries, err := os.ReadDir(root)
	if err != nil {
		b.Fatal(err)
	}
	seen := map[string]bool{}
	var trees []string
	for _, e := range entries {
		repo := e.Name()
		if i := strings.LastIndexByte(repo, '-'); i > 0 {
			repo = repo[:i]
		}
		if e.IsDir() && !seen[repo] {
			seen[repo] = true
			trees = append(trees, filepath.Join(root, e.Name()))
		}
	}
	return trees
}

func walkAgreement(root string, by map[string]*tally) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		lang := Language(p)
		if err != nil || d.IsDir() || scanners[lang] == nil || strings.Contains(p, "/.git/") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > maxParsed {
			return nil
		}
		t := by[lang]
		if t == nil {
			t = &tally{}
			by[lang] = t
		}
		t0 := time.Now()
		want := names(otherDefs(lang, src))
		t.tsTime += time.Since(t0)
		t0 = time.Now()
		got := names(scanDefs(lang, src))
		t.scanTime += time.Since(t0)
		for n, k := range want {
			t.both += min(k, got[n])
			t.ts += k
		}
		for _, k := range got {
			t.scan += k
		}
		return nil
	})
}

// names counts definitions by name, generic arguments left out (tree-sitter
// names an impl block `Foo<'a>`, the scanner `Foo`).
func names(defs []Def) map[string]int {
	m := map[string]int{}
	for _, d := range defs {
		n, _, _ := strings.Cut(d.Name, "<")
		m[strings.TrimPrefix(n, "#")]++
	}
	return m
}
