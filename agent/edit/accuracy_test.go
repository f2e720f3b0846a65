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

// judge compares what a tool left in the file with what the block meant;
// asDiff says the tool read the edit as a unified diff.
func judge(c corpusCase, got string, asDiff bool) verdict {
	refuse := mustRefuse(c.Cat) && !(asDiff && c.Cat == "divider_ambiguous")
	switch {
	case got == c.Before && refuse:
		return correct
	case got == c.Before:
		return refused
	case got == c.Want && !refuse:
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
		return "—"
	}
	if mustRefuse(cat) {
		return fmt.Sprintf("%d refused / %d wrong", v[correct], v[wrong])
	}
	return fmt.Sprintf("%d / %d / %d", v[correct], v[refused], v[wrong])
}

// applyBlock runs Warden on one block, parsed from the reply a model sends.
func applyBlock(c corpusCase) string {
	blocks, err := Parse(blockText(c))
	if err != nil || len(blocks) != 1 {
		return c.Before
	}
	return applyWarden(c, blocks)
}

func blockText(c corpusCase) string {
	nl := "\n"
	if c.CRLFBlock {
		nl = "\r\n"
	}
	return c.path() + nl + "<<<<<<< SEARCH" + nl + c.Search + "=======" + nl + c.Replace + ">>>>>>> REPLACE" + nl
}

// applyDiff runs Warden on the same block written as a unified diff.
func applyDiff(c corpusCase) string {
	blocks, err := Parse(unifiedDiff(c, c.path()))
	if err != nil || len(blocks) != 1 {
		return c.Before
	}
	return applyWarden(c, blocks)
}

func applyWarden(c corpusCase, blocks []Block) string {
	files := memFS{c.path(): c.Before}
	if _, err := Apply(files, blocks); err != nil {
		return c.Before
	}
	return files[c.path()]
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
		if c.Search == c.Replace || (!mustRefuse(c.Cat) && c.Want == c.Before) || (c.Cat == "divider_ambiguous" && c.Want == c.Before) {
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

// TestCorpusAccuracy is issues #8 and #19's acceptance: no wrong result of
// any kind, ≥ 99.5 % correct on every recoverable category, every block that
// names no single place or no allowed file refused — for blocks and for the
// same blocks as unified diffs.
func TestCorpusAccuracy(t *testing.T) {
	cs := loadCorpus(t)
	for name, run := range map[string]func(corpusCase) string{"blocks": applyBlock, "diffs": applyDiff} {
		tl := tally{}
		for _, c := range cs {
			if name == "diffs" && c.Cat == "divider_ambiguous" {
				continue // a diff has no divider to misread
			}
			v := judge(c, run(c), name == "diffs")
			tl.add(c.Cat, v)
			if v != correct {
				t.Logf("%s: %s (%s) in %s: %s\nSEARCH:\n%sREPLACE:\n%s", name, c.Cat, c.Variant, c.Src, []string{"", "refused", "WRONG"}[v], c.Search, c.Replace)
			}
		}
		for _, cat := range categories {
			v, n := tl[cat], 0
			if v == nil {
				continue
			}
			for _, k := range v {
				n += k
			}
			if v[wrong] > 0 || v[correct]*1000 < 995*n || (mustRefuse(cat) && v[correct] != n) {
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
