package edit

import (
	"regexp"
	"strings"
)

// The families of issue #19: content lines that look like the divider,
// blank lines dropped or added inside SEARCH, retyped alignment, mixed line
// endings, a new level in the model's indentation unit, and blocks that
// name the wrong file or an unsafe path.

func init() {
	generators["divider_lines"] = func(g *gen, r region) (corpusCase, bool) { return genDivider(g, r, false) }
	generators["divider_ambiguous"] = func(g *gen, r region) (corpusCase, bool) { return genDivider(g, r, true) }
	generators["blank_inside"] = genBlankInside
	generators["alignment"] = genAlignment
	generators["crlf_mixed"] = genCRLFMixed
	generators["indent_unit"] = genIndentUnit
	generators["other_file"] = genOtherFile
	generators["unsafe_path"] = genUnsafe
}

// readings are the SEARCH texts a block could mean, one per line of its
// content that looks like the divider.
func readings(search, replace []string) [][]string {
	content := append(append(append([]string{}, search...), "======="), replace...)
	var out [][]string
	for d, l := range content {
		if dividerRE.MatchString(l) {
			out = append(out, content[:d])
		}
	}
	return out
}

// genDivider: a region holding a divider-looking line (setext underline,
// docstring rule), or an edit that adds one; recoverable when exactly one
// reading of the block fits the file, must be refused when several do.
func genDivider(g *gen, r region, ambiguous bool) (corpusCase, bool) {
	if g.v%3 == 2 && !ambiguous { // REPLACE adds an underline the model typed as =======
		c := base(r)
		j := g.rng.Intn(len(r.new))
		nw := splice(r.new, j+1, 0, []string{"======="})
		c.Want, c.Replace, c.Variant = text(splice(r.f.lines, r.at, r.n, nw)), text(nw), "======= line added in REPLACE"
		return c, fits(r.f.lines, r.old, nw) == 1
	}
	var idx []int
	for i, l := range r.f.lines {
		if dividerRE.MatchString(l) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return corpusCase{}, false
	}
	x, n := idx[g.rng.Intn(len(idx))], 3+g.rng.Intn(8)
	at := min(max(x-1-g.rng.Intn(n-1), 0), len(r.f.lines)-n) // a line or more above it: two readings
	if !ambiguous {
		at = min(x, len(r.f.lines)-n) // the divider-looking line first: read there, SEARCH is empty
	}
	old := r.f.lines[at : at+n]
	if at > x || blank(old[0]) || blank(old[n-1]) || count(r.f.lines, old, loose) != 1 {
		return corpusCase{}, false
	}
	rr := region{f: r.f, at: at, n: n, old: old, new: g.replacement(old)}
	c := base(rr)
	c.Variant = "divider-looking line first in SEARCH"
	k := fits(r.f.lines, old, rr.new)
	if ambiguous {
		c.Variant = "divider-looking line in SEARCH; two readings fit"
	}
	return c, (k == 1) != ambiguous && k > 0 && c.Search != c.Replace
}

// fits counts the readings whose SEARCH names one place in the file.
func fits(lines, search, replace []string) int {
	n := 0
	for _, s := range readings(search, replace) {
		if len(nonBlank(s)) > 0 && firstRung(lines, s) == 1 {
			n++
		}
	}
	return n
}

func dropBlank(lines []string) []string {
	out := []string{lines[0]}
	for _, l := range lines[1 : len(lines)-1] {
		if !blank(l) {
			out = append(out, l)
		}
	}
	return append(out, lines[len(lines)-1])
}

// genBlankInside drops the region's inner blank lines or adds one, in
// SEARCH (and REPLACE, as models copy). Edits that put a new line right
// beside a blank line SEARCH left out are not drawn: which side of the
// blank it goes is not in the block (Warden refuses those).
func genBlankInside(g *gen, r region) (corpusCase, bool) {
	c := base(r)
	if len(nonBlank(r.old))-len(r.old) != len(nonBlank(r.new))-len(r.new) {
		return corpusCase{}, false // the edit adds or deletes a blank line itself
	}
	var s, rp []string
	switch v := g.v % 4; v {
	case 0, 1:
		if len(dropBlank(r.old)) == r.n || newBesideBlank(r.old, r.new) {
			return corpusCase{}, false
		}
		s, rp, c.Variant = dropBlank(r.old), dropBlank(r.new), "inner blank lines dropped from SEARCH and REPLACE"
		if v == 1 {
			rp, c.Variant = r.new, "inner blank lines dropped from SEARCH only"
		}
	default:
		k := 1 + g.rng.Intn(r.n-1)
		if blank(r.old[k-1]) || blank(r.old[k]) {
			return corpusCase{}, false
		}
		s, rp, c.Variant = splice(r.old, k, 0, []string{""}), r.new, "a blank line added inside SEARCH only"
		if v == 2 {
			q := keptAdjacent(r.old, r.new, k)
			if q < 0 {
				return corpusCase{}, false
			}
			rp, c.Variant = splice(r.new, q, 0, []string{""}), "a blank line added inside SEARCH and REPLACE"
		}
	}
	c.Search, c.Replace = text(s), text(rp)
	return c, c.Search != c.Replace && firstRung(r.f.lines, s) == 1
}

// newBesideBlank: a line the edit adds sits next to a blank line.
func newBesideBlank(old, nw []string) bool {
	kept := map[int]bool{}
	for _, p := range pairs(old, nw, func(int) bool { return true }) {
		kept[p[1]] = true
	}
	for q := range nw {
		if !kept[q] && (q > 0 && blank(nw[q-1]) || q+1 < len(nw) && blank(nw[q+1])) {
			return true
		}
	}
	return false
}

// keptAdjacent is where, in nw, the kept old lines k-1 and k follow each
// other, as an insertion index; -1 if the edit separated or changed them.
func keptAdjacent(old, nw []string, k int) int {
	at := map[int]int{}
	for _, p := range pairs(old, nw, func(int) bool { return true }) {
		at[p[0]] = p[1]
	}
	a, okA := at[k-1]
	b, okB := at[k]
	if !okA || !okB || b != a+1 {
		return -1
	}
	return b
}

var alignedRE = regexp.MustCompile(`\S(  +|\t)\S`)

// genAlignment retypes gofmt-style alignment (struct fields, trailing
// comments, table columns) with single spaces.
func genAlignment(g *gen, r region) (corpusCase, bool) {
	if !alignedRE.MatchString(text(r.old)) {
		return corpusCase{}, false
	}
	retype := func(l string) string {
		if blank(l) {
			return l
		}
		return lead(l) + aligned(l)
	}
	c := base(r)
	s := mapLines(r.old, retype)
	c.Search, c.Variant = text(s), "alignment retyped in SEARCH only"
	if g.v%2 == 0 {
		c.Replace, c.Variant = text(mapLines(r.new, retype)), "alignment retyped in SEARCH and REPLACE"
	}
	return c, c.Search != c.Replace && firstRung(r.f.lines, s) == 1
}

// genOtherFile sends a real block to the wrong file.
func genOtherFile(g *gen, r region) (corpusCase, bool) {
	of := g.files[g.rng.Intn(len(g.files))]
	search := r.old
	if g.v%2 == 1 {
		search = mapLines(r.old, g.drift(r.old))
	}
	if of.path == r.f.path || firstRung(of.lines, search) != 0 {
		return corpusCase{}, false
	}
	c := base(r)
	c.Src, c.Before, c.Want, c.Search = of.path, text(of.lines), text(of.lines), text(search)
	c.Variant = []string{"exact block, wrong file", "block with trailing blanks, wrong file"}[g.v%2]
	return c, true
}

// genUnsafe names a path outside the worktree or inside .git.
func genUnsafe(g *gen, r region) (corpusCase, bool) {
	c := base(r)
	base := r.f.path[strings.LastIndex(r.f.path, "/")+1:]
	c.Path = []string{"../" + base, "x/../../" + base, ".git/config", ".git/hooks/pre-commit"}[g.v%4]
	c.Want, c.Variant = c.Before, "path "+c.Path
	return c, true
}
