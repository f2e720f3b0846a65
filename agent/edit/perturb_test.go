package edit

import "strings"

// generators perturb a region's block the way models drift; false means the
// region does not suit the category and another one is drawn.
var generators = map[string]func(*gen, region) (corpusCase, bool){
	"exact":           func(_ *gen, r region) (corpusCase, bool) { c := base(r); c.Variant = "as-is"; return c, true },
	"trailing_spaces": genTrailing,
	"tabs_to_spaces":  genTabs,
	"reindent":        genReindent,
	"crlf":            genCRLF,
	"blank_edges":     genBlank,
	"near_duplicate":  genNearDup,
	"ambiguous":       genAmbiguous,
	"absent":          genAbsent,
}

// mapLines rewrites every line through f (nil lines stay nil).
func mapLines(lines []string, f func(string) string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = f(l)
	}
	return out
}

// drift adds trailing blanks to about half the lines; the same line text
// always drifts the same way, so REPLACE can carry the drift too.
func (g *gen) drift(lines []string) func(string) string {
	pads := []string{" ", "  ", "\t", " \t", "    "}
	m := map[string]string{}
	for _, l := range lines {
		if g.rng.Intn(2) == 0 {
			m[l] = l + pads[g.rng.Intn(len(pads))]
		}
	}
	if len(m) == 0 {
		m[lines[0]] = lines[0] + " "
	}
	return func(l string) string {
		if d, ok := m[l]; ok {
			return d
		}
		return l
	}
}

func genTrailing(g *gen, r region) (corpusCase, bool) {
	c, d := base(r), g.drift(r.old)
	search := mapLines(r.old, d)
	c.Search, c.Variant = text(search), "search"
	if g.v%2 == 0 {
		c.Replace, c.Variant = text(mapLines(r.new, d)), "search+replace"
	}
	return c, count(r.f.lines, search, same) == 0
}

// spaces turns each leading tab into w spaces.
func spaces(w int) func(string) string {
	return func(l string) string {
		ld := lead(l)
		return strings.ReplaceAll(ld, "\t", strings.Repeat(" ", w)) + l[len(ld):]
	}
}

func genTabs(g *gen, r region) (corpusCase, bool) {
	if !strings.Contains(strings.Join(mapLines(r.old, lead), ""), "\t") {
		return corpusCase{}, false // nothing indented with a tab
	}
	c := base(r)
	switch v := g.v % 5; v {
	case 0:
		sp := spaces(4)
		c.Before, c.Want = text(mapLines(r.f.lines, sp)), text(mapLines(splice(r.f.lines, r.at, r.n, r.new), sp))
		c.Variant = "file in 4 spaces, block in tabs"
	default:
		w := []int{4, 4, 8, 2}[v-1]
		c.Search, c.Replace = text(mapLines(r.old, spaces(w))), text(mapLines(r.new, spaces(w)))
		c.Variant = "block tabs→" + string(rune('0'+w)) + " spaces"
	}
	return c, true
}

func genReindent(g *gen, r region) (corpusCase, bool) {
	k := len(r.old[0])
	for _, l := range append(append([]string{}, r.old...), r.new...) {
		if !blank(l) {
			k = min(k, len(l)-len(strings.TrimLeft(l, "\t")))
		}
	}
	shift, variant := func(l string) string { return "\t" + l }, "one tab deeper"
	switch v := g.v % 4; {
	case v == 1:
		shift, variant = func(l string) string { return "    " + l }, "four spaces deeper"
	case v == 2 && k > 0:
		shift, variant = func(l string) string { return l[k:] }, "dedented to column 0"
	case v == 3 && k > 0:
		shift, variant = func(l string) string { return spaces(4)(l[k:]) }, "dedented, tabs→4 spaces"
	case v > 1:
		return corpusCase{}, false
	}
	keepBlank := func(l string) string {
		if blank(l) {
			return l
		}
		return shift(l)
	}
	c := base(r)
	c.Search, c.Replace, c.Variant = text(mapLines(r.old, keepBlank)), text(mapLines(r.new, keepBlank)), variant
	return c, c.Search != text(r.old)
}

func genCRLF(g *gen, r region) (corpusCase, bool) {
	c := base(r)
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	switch g.v % 3 {
	case 0:
		c.Before, c.Want, c.Variant = crlf(c.Before), crlf(c.Want), "CRLF file, LF block"
	case 1:
		c.Search, c.Replace, c.CRLFBlock, c.Variant = crlf(c.Search), crlf(c.Replace), true, "LF file, CRLF block"
	default:
		c.Before, c.Want, c.Variant = crlf(c.Before), crlf(c.Want), "CRLF file, CRLF block"
		c.Search, c.Replace, c.CRLFBlock = crlf(c.Search), crlf(c.Replace), true
	}
	return c, true
}

// genBlank adds blank edge lines the file does not have there, or drops the
// blank line the file has above the region.
func genBlank(g *gen, r region) (corpusCase, bool) {
	ls, c := r.f.lines, base(r)
	above := r.at > 0 && !blank(ls[r.at-1])
	below := r.at+r.n < len(ls) && !blank(ls[r.at+r.n])
	twoAbove := r.at > 1 && blank(ls[r.at-1]) && !blank(ls[r.at-2])
	top, bottom, replaceToo := "", "", true
	switch v := g.v % 7; {
	case v == 0 && above:
		top, c.Variant = "\n", "added blank first line"
	case v == 1 && below:
		bottom, c.Variant = "\n", "added blank last line"
	case v == 2 && above && below:
		top, bottom, c.Variant = "\n", "\n", "added blank first and last lines"
	case v == 3 && above:
		top, replaceToo, c.Variant = "\n", false, "added blank first line, SEARCH only"
	case v == 4 && below:
		bottom, c.Variant = "\t \n", "added whitespace-only last line"
	case v == 5 && twoAbove:
		top, c.Variant = "\n\n", "two blank first lines, the file has one"
	case v == 6 && r.at > 0 && blank(ls[r.at-1]):
		c.Variant = "dropped the blank line above" // the intended block began with it
	default:
		return corpusCase{}, false
	}
	c.Search = top + c.Search + bottom
	if replaceToo {
		c.Replace = top + c.Replace + bottom
	}
	return c, true
}
