package edit

import "strings"

// Corpus categories where the place itself is in question: a near-identical
// region elsewhere (must still apply to the right one), a true duplicate
// (must be refused) and a block that matches nothing (must be refused).

// firstRung is the test's reading of DESIGN.md §5 and issue #19: the number
// of places found by the first comparison that finds any — exact, ignoring
// trailing blanks, ignoring indentation (a superset of the uniform shift),
// also ignoring runs of inner blanks — trying the block as given, then with
// its blank edge lines dropped, then ignoring blank lines altogether.
func firstRung(lines, search []string) int {
	for pass := 0; pass < 3; pass++ {
		if pass == 1 {
			for len(search) > 0 && blank(search[0]) {
				search = search[1:]
			}
			for len(search) > 0 && blank(search[len(search)-1]) {
				search = search[:len(search)-1]
			}
		}
		l, s := lines, search
		if pass == 2 {
			l, s = nonBlank(lines), nonBlank(search)
			if len(s) == 0 {
				return 0
			}
		}
		for _, norm := range []func(string) string{same, trailing, loose, aligned} {
			if n := count(l, s, norm); n > 0 {
				return n
			}
		}
	}
	return 0
}

func aligned(s string) string { return strings.Join(strings.Fields(s), " ") }

func nonBlank(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !blank(l) {
			out = append(out, l)
		}
	}
	return out
}

func deeper(prefix string) func(string) string {
	return func(l string) string {
		if blank(l) {
			return l
		}
		return prefix + l
	}
}

// withCopy inserts cp at a random line boundary outside the region; it
// returns the new file and where the region now starts.
func (g *gen) withCopy(r region, cp []string) ([]string, int) {
	k := g.rng.Intn(len(r.f.lines) - r.n + 2)
	if k <= r.at {
		return splice(r.f.lines, k, 0, cp), r.at + len(cp)
	}
	return splice(r.f.lines, k-1+r.n, 0, cp), r.at
}

func genNearDup(g *gen, r region) (corpusCase, bool) {
	cp, kind := append([]string{}, r.old...), ""
	switch j := 1 + g.rng.Intn(r.n-2); g.v % 4 {
	case 0:
		cp[j], kind = g.retouch(cp[j], "2"), "one token differs"
	case 1:
		j = []int{0, r.n - 1}[g.rng.Intn(2)]
		cp[j], kind = g.retouch(cp[j], "2"), "an edge line differs"
	case 2:
		cp, kind = append(cp[:j], cp[j+1:]...), "one line fewer"
	default:
		cp, kind = mapLines(cp, deeper("\t")), "one tab deeper"
	}
	lines, at := g.withCopy(r, cp)
	search := r.old
	switch v := g.v / 4 % 3; {
	case v == 1:
		search, kind = mapLines(r.old, g.drift(r.old)), kind+"; SEARCH with trailing blanks"
	case v == 2 && kind != "one tab deeper":
		search, kind = mapLines(r.old, spaces(4)), kind+"; SEARCH in spaces"
	}
	c := base(region{f: srcFile{path: r.f.path, lines: lines, lang: r.f.lang}, at: at, n: r.n, old: r.old, new: r.new})
	c.Search, c.Variant = text(search), "copy elsewhere: "+kind
	return c, firstRung(lines, search) == 1
}

func genAmbiguous(g *gen, r region) (corpusCase, bool) {
	cp, search, kind := r.old, r.old, ""
	switch g.v % 5 {
	case 0:
		return g.natural(r.f)
	case 1:
		kind = "exact copy"
	case 2:
		search, kind = mapLines(r.old, g.drift(r.old)), "exact copy; SEARCH with trailing blanks"
	case 3:
		cp, search, kind = mapLines(r.old, deeper("\t")), mapLines(r.old, deeper("\t\t")), "copy one tab deeper; SEARCH two tabs deeper"
	default:
		search, kind = append([]string{""}, r.old...), "exact copy; SEARCH with an added blank first line"
	}
	lines, at := g.withCopy(r, cp)
	c := corpusCase{Before: text(lines), Want: text(lines), Search: text(search), Replace: text(r.new), Line: at + 1, Variant: kind}
	return c, firstRung(lines, search) == 2
}

// natural finds a window of 3–5 lines that the file already holds twice.
func (g *gen) natural(f srcFile) (corpusCase, bool) {
	for try := 0; try < 300; try++ {
		n := 3 + g.rng.Intn(3)
		at := g.rng.Intn(len(f.lines) - n + 1)
		w := f.lines[at : at+n]
		if blank(w[0]) || blank(w[n-1]) || !identRE.MatchString(text(w)) || count(f.lines, w, same) < 2 {
			continue
		}
		c := base(region{f: f, at: at, n: n, old: w, new: g.replacement(w)})
		c.Want, c.Variant = c.Before, "already twice in the file"
		return c, true
	}
	return corpusCase{}, false
}

func genAbsent(g *gen, r region) (corpusCase, bool) {
	search, kind := append([]string{}, r.old...), ""
	switch j := 1 + g.rng.Intn(r.n-2); g.v % 4 {
	case 0:
		if blank(search[j]) {
			return corpusCase{}, false
		}
		search[j], kind = g.retouch(search[j], "Renamed"), "one token differs"
	case 1:
		search, kind = splice(search, j, 0, []string{lead(search[j]) + "invented()"}), "an invented line"
	case 2:
		search, kind = splice(search, j, 1, nil), "a line left out"
	default:
		of := g.files[g.rng.Intn(len(g.files))]
		at := g.rng.Intn(len(of.lines) - r.n + 1)
		search, kind = of.lines[at:at+r.n], "lines from another file"
		if of.path == r.f.path || blank(search[0]) || blank(search[r.n-1]) {
			return corpusCase{}, false
		}
	}
	c := base(r)
	c.Search, c.Want, c.Variant = text(search), c.Before, kind
	return c, firstRung(r.f.lines, search) == 0 && c.Search != c.Replace
}
