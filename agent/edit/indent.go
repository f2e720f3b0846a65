package edit

import (
	"fmt"
	"strings"
)

const tabWidth = 4

// width measures leading whitespace in columns (a tab is tw).
func width(s string, tw int) int {
	w := 0
	for _, r := range s {
		switch r {
		case ' ':
			w++
		case '\t':
			w += tw
		default:
			return w
		}
	}
	return w
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// indentUnit is what one more level of indentation adds in this file: the
// most common step between a line and a deeper next line ("\t", "  ",
// "    "...). A file without such steps is assumed to use tabs if any line
// starts with one, four spaces otherwise.
func (d *doc) indentUnit() string {
	if d.unit != "" {
		return d.unit
	}
	counts := map[string]int{}
	prev, tabbed := "", false
	for _, l := range d.lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := indentOf(l)
		tabbed = tabbed || strings.HasPrefix(ind, "\t")
		if len(ind) > len(prev) && strings.HasPrefix(ind, prev) {
			if step := ind[len(prev):]; step == "\t" || strings.Trim(step, " ") == "" && len(step) <= 8 {
				counts[step]++
			}
		}
		prev = ind
	}
	best, n := "", 0
	for step, c := range counts {
		if c > n || c == n && len(step) < len(best) {
			best, n = step, c
		}
	}
	switch {
	case best != "":
		d.unit = best
	case tabbed:
		d.unit = "\t"
	default:
		d.unit = "    "
	}
	return d.unit
}

// modelUnit is the model's step of indentation in columns, read from its
// own block: the most common increase between consecutive non-blank lines.
func modelUnit(blocks [][]string, tw int, fallback int) int {
	counts := map[int]int{}
	for _, lines := range blocks {
		prev := -1
		for _, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			w := width(indentOf(l), tw)
			if prev >= 0 && w > prev {
				counts[w-prev]++
			}
			prev = w
		}
	}
	best, n := fallback, 0
	for step, c := range counts {
		if c > n || c == n && step < best {
			best, n = step, c
		}
	}
	return max(best, 1)
}

// fitter rewrites a new REPLACE line for the file: on the lenient tiers its
// indentation is re-expressed in levels of the file's own unit, counted from
// the nearest SEARCH line the model indented no deeper.
type fitter struct {
	d       *doc
	level   int
	tw      int
	search  []string
	fileOf  []int
	mUnit   int
	fUnit   string
	fUnitW  int
	ready   bool
	replace []string
	// sameIndent: every matched line has the file's indentation byte for byte
	sameIndent bool
	// trailing: the model added trailing blanks to lines the file has
	// without; its new lines lose theirs too (but see trail)
	trailing bool
	// at is the SEARCH line the new lines being written go just above
	at int
	// err: a new line's indentation could not be told (see anchor)
	err error
}

func (f *fitter) init() {
	if f.ready {
		return
	}
	f.ready = true
	f.fUnit = f.d.indentUnit()
	f.fUnitW = max(width(f.fUnit, f.tw), 1)
	f.mUnit = modelUnit([][]string{f.search, f.replace}, f.tw, f.fUnitW)
	if f.mUnit != f.fUnitW {
		if step, ok := f.localStep(); ok {
			f.fUnit, f.fUnitW = step, f.mUnit
		}
	}
	f.sameIndent = true
	for i, s := range f.search {
		if f.fileOf[i] < 0 || strings.TrimSpace(s) == "" {
			continue
		}
		fl := f.d.lines[f.fileOf[i]]
		f.sameIndent = f.sameIndent && indentOf(s) == indentOf(fl)
		f.trailing = f.trailing || s[len(trimRight(s)):] != "" && fl[len(trimRight(fl)):] == ""
	}
}

// localStep is the file's step where the model's own step shows inside
// SEARCH: when every step of mUnit columns between consecutive matched
// lines is the same file string of mUnit columns, that region indents by
// it, not by the file's unit (a docstring's two-column list in a
// four-space file). ok is false when SEARCH shows no such step or they
// disagree.
func (f *fitter) localStep() (string, bool) {
	step, prev := "", -1
	for i, s := range f.search {
		if f.fileOf[i] < 0 || strings.TrimSpace(s) == "" {
			continue
		}
		if prev >= 0 && width(indentOf(s), f.tw)-width(indentOf(f.search[prev]), f.tw) == f.mUnit {
			fp, fi := indentOf(f.d.lines[f.fileOf[prev]]), indentOf(f.d.lines[f.fileOf[i]])
			if !strings.HasPrefix(fi, fp) || width(fi[len(fp):], f.tw) != f.mUnit || step != "" && fi[len(fp):] != step {
				return "", false
			}
			step = fi[len(fp):]
		}
		prev = i
	}
	return step, step != ""
}

// fit returns the line to write for REPLACE line r; sub is the SEARCH line
// it took the place of (-1 if none), whose file spacing it may inherit.
func (f *fitter) fit(r string, sub int) string {
	if f.level == levelExact {
		return r
	}
	f.init()
	r = f.trail(r, sub)
	if f.level < levelIndent {
		return r
	}
	text := strings.TrimLeft(r, " \t")
	if trimRight(text) == "" {
		return ""
	}
	fl := ""
	if sub >= 0 && f.fileOf[sub] >= 0 {
		fl = f.d.lines[f.fileOf[sub]]
		if f.level == levelAlignment {
			text = respace(text, f.search[sub], fl)
		}
	}
	w := width(indentOf(r), f.tw)
	switch {
	case f.sameIndent: // the model copied the file's indentation: its new lines are as it wrote them
		return indentOf(r) + text
	case fl != "" && width(indentOf(f.search[sub]), f.tw) == w: // indented as the line it replaces
		return indentOf(fl) + text
	}
	ind, err := f.indent(w)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("REPLACE line %q %v; copy the indentation exactly from the file", strings.TrimSpace(r), err)
	}
	return ind + text
}

// indent is the file indentation for a model line indented w columns:
// levels of the file's unit added to the anchor (the SEARCH lines the
// model indented deepest but no deeper than w), or taken off the
// shallowest SEARCH line.
func (f *fitter) indent(w int) (string, error) {
	bestW, lowW, low := -1, -1, ""
	for i, s := range f.search {
		if f.fileOf[i] < 0 || strings.TrimSpace(s) == "" {
			continue
		}
		sw, fi := width(indentOf(s), f.tw), indentOf(f.d.lines[f.fileOf[i]])
		if sw <= w && sw > bestW {
			bestW = sw
		}
		if lowW < 0 || sw < lowW {
			lowW, low = sw, fi
		}
	}
	if bestW < 0 { // shallower than every SEARCH line: take levels off the shallowest
		levels := (lowW - w + f.mUnit - 1) / f.mUnit
		out := low
		for ; levels > 0 && strings.HasSuffix(out, f.fUnit); levels-- {
			out = out[:len(out)-len(f.fUnit)]
		}
		if levels > 0 {
			return columns(max(width(low, f.tw)-(lowW-w), 0), f.tw, strings.Contains(low, "\t")), nil
		}
		return out, nil
	}
	best, err := f.anchor(bestW)
	excess := w - bestW
	return best + strings.Repeat(f.fUnit, excess/f.mUnit) + strings.Repeat(" ", excess%f.mUnit), err
}

func columns(w, tw int, tabs bool) string {
	if tabs {
		return strings.Repeat("\t", w/tw) + strings.Repeat(" ", w%tw)
	}
	return strings.Repeat(" ", w)
}
