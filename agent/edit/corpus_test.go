package edit

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// The accuracy corpus (issue #8): edit blocks cut from real Go source in
// $(go env GOROOT)/src, each perturbed the way models drift. The same seed and
// the same Go installation give the same corpus.
const (
	corpusSeed  = 8
	corpusFiles = 48
	perCategory = 200
)

var categories = []string{"exact", "trailing_spaces", "tabs_to_spaces", "reindent", "crlf",
	"blank_edges", "near_duplicate", "divider_lines", "blank_inside", "alignment", "crlf_mixed", "indent_unit",
	"blank_drift", "docstring_step",
	"ambiguous", "absent", "divider_ambiguous", "other_file", "unsafe_path"}

// mustRefuse: the block names no single place (or no allowed file), so any
// application is wrong. divider_ambiguous is so only as a block: the same
// edit as a unified diff has no divider to misread.
func mustRefuse(cat string) bool {
	switch cat {
	case "ambiguous", "absent", "divider_ambiguous", "other_file", "unsafe_path":
		return true
	}
	return false
}

// corpusCase is one perturbed block and the file it was made for. Want is
// Before when the block must be refused.
type corpusCase struct {
	Cat, Variant, Src string
	Before, Want      string
	Search, Replace   string
	Path              string // the path the block names, when not Src (unsafe paths)
	Line              int    // 1-based first line of the intended region (diff headers)
	CRLFBlock         bool   // the reply itself came with CRLF line endings
}

type srcFile struct {
	path  string
	lines []string
	lang  string
}

// region is the place an edit targets in f, and the real replacement.
type region struct {
	f        srcFile
	at, n    int
	old, new []string
}

type gen struct {
	rng   *rand.Rand
	files []srcFile
	v     int // the case's index in its category: generators cycle variants on it
}

// goSrc finds $(go env GOROOT)/src; the corpus cannot exist without it.
func goSrc() (string, error) {
	root := os.Getenv("GOROOT")
	if root == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return "", fmt.Errorf("edit corpus: `go env GOROOT` failed (%v); the corpus is cut from the Go source tree", err)
		}
		root = strings.TrimSpace(string(out))
	}
	src := filepath.Join(root, "src")
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("edit corpus: no Go source tree at %s (GOROOT %q); install the Go distribution with its sources", src, root)
	}
	return src, nil
}

func buildCorpus() ([]corpusCase, error) {
	if _, err := goSrc(); err != nil {
		return nil, err
	}
	g := &gen{rng: rand.New(rand.NewSource(corpusSeed))}
	var err error
	if g.files, err = loadFiles(g.rng); err != nil {
		return nil, err
	}
	var out []corpusCase
	for ci, cat := range categories {
		for k := 0; k < perCategory; k++ {
			c, err := g.make(cat, ci*perCategory+k)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func (g *gen) make(cat string, seq int) (corpusCase, error) {
	g.v = seq % perCategory
	for try := 0; try < 4000; try++ {
		f := g.files[(seq+try)%len(g.files)]
		r, ok := g.region(f)
		if !ok {
			continue
		}
		if c, ok := generators[cat](g, r); ok {
			c.Cat = cat
			if c.Src == "" {
				c.Src = f.path
			}
			return c, nil
		}
	}
	return corpusCase{}, fmt.Errorf("edit corpus: no %s case after 4000 tries", cat)
}

// region picks 3–12 lines with non-blank edges, unique in the file even
// ignoring all indentation, and a real edit of them.
func (g *gen) region(f srcFile) (region, bool) {
	n := 3 + g.rng.Intn(10)
	at := g.rng.Intn(len(f.lines) - n + 1)
	old := f.lines[at : at+n]
	if blank(old[0]) || blank(old[n-1]) || count(f.lines, old, loose) != 1 || hasDivider(old) {
		return region{}, false // divider-looking lines are the divider families' own
	}
	return region{f: f, at: at, n: n, old: old, new: g.replacement(old)}, true
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// replacement inserts a line, deletes one, renames an identifier, or both of
// the first and last.
func (g *gen) replacement(old []string) []string {
	out := append([]string{}, old...)
	switch op := g.rng.Intn(4); op {
	case 1:
		j := 1 + g.rng.Intn(len(out)-2)
		return append(out[:j], out[j+1:]...)
	case 2, 3:
		j := g.rng.Intn(len(out))
		for blank(out[j]) {
			j = (j + 1) % len(out)
		}
		out[j] = g.retouch(out[j], "Edited")
		if op == 2 {
			return out
		}
	}
	j := g.rng.Intn(len(out))
	line := lead(out[j]) + fmt.Sprintf("wardenEdit%d()", g.rng.Intn(1000))
	return append(out[:j+1], append([]string{line}, out[j+1:]...)...)
}

// retouch appends suffix to the line's first identifier.
func (g *gen) retouch(l, suffix string) string {
	loc := identRE.FindStringIndex(l)
	if loc == nil {
		return l + " // " + suffix
	}
	return l[:loc[1]] + suffix + l[loc[1]:]
}

func (c corpusCase) path() string {
	if c.Path != "" {
		return c.Path
	}
	return c.Src
}

func blank(s string) bool        { return strings.TrimSpace(s) == "" }
func loose(s string) string      { return strings.TrimSpace(s) }
func same(s string) string       { return s }
func trailing(s string) string   { return strings.TrimRight(s, " \t\r") }
func lead(s string) string       { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }
func text(lines []string) string { return strings.Join(lines, "\n") + "\n" }

// count is the test's own oracle: places where search matches under norm.
func count(lines, search []string, norm func(string) string) int {
	n := 0
	for i := 0; i+len(search) <= len(lines); i++ {
		k := 0
		for k < len(search) && norm(lines[i+k]) == norm(search[k]) {
			k++
		}
		if k == len(search) {
			n++
		}
	}
	return n
}

func splice(lines []string, at, n int, with []string) []string {
	out := append(append([]string{}, lines[:at]...), with...)
	return append(out, lines[at+n:]...)
}

// base is the undisturbed block for r.
func base(r region) corpusCase {
	return corpusCase{Before: text(r.f.lines), Want: text(splice(r.f.lines, r.at, r.n, r.new)),
		Search: text(r.old), Replace: text(r.new), Line: r.at + 1}
}
