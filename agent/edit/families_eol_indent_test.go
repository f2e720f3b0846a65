package edit

import "strings"

// Families of issue #19, continued: mixed line endings and the model's own
// indentation unit.

func withEOLs(lines []string, crlf map[int]bool) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if crlf[i] {
			b.WriteString("\r\n")
		} else {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// genCRLFMixed: files whose lines do not all end alike. Untouched lines
// keep their endings; new lines take the ending of the region they join.
func genCRLFMixed(g *gen, r region) (corpusCase, bool) {
	c, n := base(r), len(r.f.lines)
	before, after := map[int]bool{}, map[int]bool{}
	mark := func(i int, on bool) {
		before[i] = on
		switch {
		case i < r.at:
			after[i] = on
		case i >= r.at+r.n:
			after[i+len(r.new)-r.n] = on
		}
	}
	v := g.v % 4
	fileCRLF, regionCRLF := v == 1 || v == 3, v == 1 || v == 2
	if v == 1 {
		regionCRLF = false
	}
	for i := 0; i < n; i++ {
		mark(i, fileCRLF)
	}
	switch v {
	case 0, 3:
		for k := 0; k < 3; k++ {
			if i := g.rng.Intn(n); i < r.at-1 || i > r.at+r.n {
				mark(i, !fileCRLF)
			}
		}
		regionCRLF = fileCRLF
	}
	for i := r.at; i < r.at+r.n; i++ {
		before[i] = regionCRLF
	}
	for q := range r.new {
		after[r.at+q] = regionCRLF
	}
	c.Before, c.Want = withEOLs(r.f.lines, before), withEOLs(splice(r.f.lines, r.at, r.n, r.new), after)
	c.Variant = []string{"LF file, a few CRLF lines elsewhere, LF block", "CRLF file, LF region, LF block",
		"LF file, CRLF region, CRLF block", "CRLF file, a few LF lines elsewhere, CRLF block"}[v]
	if v >= 2 {
		crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
		c.Search, c.Replace, c.CRLFBlock = crlf(c.Search), crlf(c.Replace), true
	}
	return c, true
}

// fileUnit is the test's own reading of a file's indentation: tabs, or a
// width every space indentation is a multiple of; "" when mixed.
func fileUnit(lines []string) string {
	tabs, spaces, minW := false, false, 0
	for _, l := range lines {
		ld := lead(l)
		if blank(l) || ld == "" {
			continue
		}
		tabs = tabs || strings.Trim(ld, "\t") == ""
		spaces = spaces || strings.Trim(ld, " ") == ""
		if strings.Trim(ld, " ") == "" && (minW == 0 || len(ld) < minW) {
			minW = len(ld)
		}
	}
	switch {
	case tabs && !spaces:
		return "\t"
	case spaces && !tabs && (minW == 2 || minW == 4):
		for _, l := range lines {
			if ld := lead(l); !blank(l) && (strings.Contains(ld, "\t") || len(ld)%minW != 0) {
				return ""
			}
		}
		return strings.Repeat(" ", minW)
	}
	return ""
}

// genIndentUnit: the edit adds a line one level deeper; the model's block
// is indented in its own unit (tabs as 8, 4 or 2 spaces; a 2-space file in
// 4; a 4-space file in 2 or 8) and shifted, so the new level must be
// re-expressed in the file's unit.
func genIndentUnit(g *gen, r region) (corpusCase, bool) {
	u := fileUnit(r.f.lines)
	if u == "" {
		return corpusCase{}, false
	}
	level := func(l string) int { return len(lead(l)) / len(u) }
	j := g.rng.Intn(r.n)
	if blank(r.old[j]) {
		return corpusCase{}, false
	}
	nw := splice(r.old, j+1, 0, []string{lead(r.old[j]) + u + "wardenNested()"})
	minL, maxL := 1<<30, 0
	for _, l := range r.old {
		if !blank(l) && lead(l) != strings.Repeat(u, level(l)) {
			return corpusCase{}, false
		}
		if !blank(l) {
			minL, maxL = min(minL, level(l)), max(maxL, level(l))
		}
	}
	var m, offset int
	if u == "\t" {
		m = []int{8, 4, 2}[g.v%3]
		if g.v%2 == 1 {
			offset = -minL * m
		}
	} else {
		if minL != maxL {
			return corpusCase{}, false // a space file shows its unit on every level step
		}
		m = map[int][]int{2: {4, 8}, 4: {2, 8}}[len(u)][g.v%2]
		offset = m
		if minL > 0 {
			offset = -minL * m
		}
	}
	model := func(l string) string {
		if blank(l) {
			return l
		}
		return strings.Repeat(" ", max(level(l)*m+offset, 0)) + strings.TrimLeft(l, " \t")
	}
	c := base(region{f: r.f, at: r.at, n: r.n, old: r.old, new: nw})
	c.Search, c.Replace = text(mapLines(r.old, model)), text(mapLines(nw, model))
	c.Variant = strings.NewReplacer("\t", "tab", " ", "·").Replace(u) + " file, block in " + string(rune('0'+m)) + "-space levels"
	return c, c.Search != text(r.old) && firstRung(r.f.lines, r.old) == 1
}
