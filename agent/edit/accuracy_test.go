package edit

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// verdict of one tool on one block.
type verdict int

const (
	correct verdict = iota // recoverable: the file is exactly the expected one; otherwise refused as it must be
	refused                // recoverable block left unapplied
	wrong                  // applied where or how it should not have been
)

// judge compares what a tool left in the file with what the block meant.
func judge(c corpusCase, got string) verdict {
	switch {
	case got == c.Before && mustRefuse(c.Cat):
		return correct
	case got == c.Before:
		return refused
	case got == c.Want && !mustRefuse(c.Cat):
		return correct
	default:
		return wrong
	}
}

// tally is a tool's verdicts per category.
type tally map[string]*[3]int

func (t tally) add(cat string, v verdict) {
	if t[cat] == nil {
		t[cat] = &[3]int{}
	}
	t[cat][v]++
}

// cell renders one category as correct/refused/wrong.
func (t tally) cell(cat string) string {
	v := t[cat]
	if v == nil {
		v = &[3]int{}
	}
	if mustRefuse(cat) {
		return fmt.Sprintf("%d refused / %d wrong", v[correct], v[wrong])
	}
	return fmt.Sprintf("%d / %d / %d", v[correct], v[refused], v[wrong])
}

// applyBlock runs Warden's ladder on one block, as the model's block.
func applyBlock(c corpusCase) string {
	return applyWarden(c, []Block{{Index: 1, Path: c.Src, Search: c.Search, Replace: c.Replace}})
}

// applyDiff runs Warden on the same block written as a unified diff.
func applyDiff(c corpusCase) string {
	blocks, err := Parse(unifiedDiff(c, c.Src))
	if err != nil || len(blocks) != 1 {
		return c.Before
	}
	return applyWarden(c, blocks)
}

func applyWarden(c corpusCase, blocks []Block) string {
	files := memFS{c.Src: c.Before}
	if _, err := Apply(files, blocks); err != nil {
		return c.Before
	}
	return files[c.Src]
}

var (
	corpusOnce sync.Once
	corpus     []corpusCase
	corpusErr  error
)

func loadCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	corpusOnce.Do(func() { corpus, corpusErr = buildCorpus() })
	if corpusErr != nil {
		tb.Fatal(corpusErr) // never skip: the acceptance figures depend on it
	}
	return corpus
}

func TestCorpusShape(t *testing.T) {
	cs := loadCorpus(t)
	files, per := map[string]bool{}, map[string]int{}
	for _, c := range cs {
		files[c.Src] = true
		per[c.Cat]++
		if c.Search == c.Replace || (!mustRefuse(c.Cat) && c.Want == c.Before) {
			t.Errorf("%s/%s in %s: the block changes nothing", c.Cat, c.Variant, c.Src)
		}
	}
	if len(cs) < 300 || len(files) < 40 {
		t.Errorf("%d blocks from %d files; want ≥ 300 from ≥ 40", len(cs), len(files))
	}
	for _, cat := range categories {
		if per[cat] < 30 {
			t.Errorf("%s: %d blocks, want ≥ 30", cat, per[cat])
		}
	}
}

// TestCorpusAccuracy is issue #8's acceptance: no wrong-place application,
// ≥ 99 % correct on every recoverable category, every ambiguous and absent
// block refused — for blocks and for the same blocks as unified diffs.
func TestCorpusAccuracy(t *testing.T) {
	cs := loadCorpus(t)
	for name, run := range map[string]func(corpusCase) string{"blocks": applyBlock, "diffs": applyDiff} {
		tl := tally{}
		for _, c := range cs {
			v := judge(c, run(c))
			tl.add(c.Cat, v)
			if v != correct {
				t.Logf("%s: %s (%s) in %s: %s\nSEARCH:\n%sREPLACE:\n%s", name, c.Cat, c.Variant, c.Src, []string{"", "refused", "WRONG"}[v], c.Search, c.Replace)
			}
		}
		for _, cat := range categories {
			v, n := tl[cat], 0
			for _, k := range v {
				n += k
			}
			if v[wrong] > 0 || v[correct]*100 < 99*n || (mustRefuse(cat) && v[correct] != n) {
				t.Errorf("%s, %s: %s of %d", name, cat, tl.cell(cat), n)
			}
		}
	}
}

// table renders per-category results for several tools as markdown.
func table(cs []corpusCase, tools []string, tallies []tally) string {
	per := map[string]int{}
	for _, c := range cs {
		per[c.Cat]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| category | blocks | %s |\n|---|---|%s\n", strings.Join(tools, " | "), strings.Repeat("---|", len(tools)))
	for _, cat := range categories {
		cells := make([]string, len(tallies))
		for i, t := range tallies {
			cells[i] = t.cell(cat)
		}
		fmt.Fprintf(&b, "| %s | %d | %s |\n", cat, per[cat], strings.Join(cells, " | "))
	}
	return b.String()
}
