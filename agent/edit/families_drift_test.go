package edit

import "strings"

// The families of issue #30, drawn from non-Go files only (Python, YAML,
// Markdown, shell, JSON):
//   - blank_drift: SEARCH leaves out the region's inner blank lines and
//     REPLACE, copied from the file, keeps them, while the edit changes or
//     adds a line right beside one of them;
//   - docstring_step: a region indented by a step that is not the file's unit
//     (a docstring's two-column list in a four-space file) sent dedented to
//     column 0, with a new line one such step deeper.

func init() {
	generators["blank_drift"] = genBlankDrift
	generators["docstring_step"] = genDocstringStep
}

func nonGo(f srcFile) bool { return !strings.HasPrefix(f.lang, "go") && f.lang != "divider" }

// genBlankDrift edits the line above an inner blank line, the line below
// it, or adds a line just above it.
func genBlankDrift(g *gen, r region) (corpusCase, bool) {
	if !nonGo(r.f) {
		return corpusCase{}, false
	}
	var at []int
	for k := 1; k+1 < r.n; k++ {
		if blank(r.old[k]) && !blank(r.old[k-1]) && !blank(r.old[k+1]) {
			at = append(at, k)
		}
	}
	if len(at) == 0 {
		return corpusCase{}, false
	}
	k, nw := at[g.rng.Intn(len(at))], append([]string{}, r.old...)
	c := corpusCase{Line: r.at + 1}
	switch g.v % 3 {
	case 0:
		nw[k-1], c.Variant = g.retouch(nw[k-1], "Edited"), "line above the left-out blank changed"
	case 1:
		nw[k+1], c.Variant = g.retouch(nw[k+1], "Edited"), "line below the left-out blank changed"
	default:
		nw, c.Variant = splice(nw, k, 0, []string{lead(nw[k-1]) + "wardenEdit()"}), "line added above the left-out blank"
	}
	s := nonBlank(r.old)
	c.Before, c.Want = text(r.f.lines), text(splice(r.f.lines, r.at, r.n, nw))
	c.Search, c.Replace = text(s), text(nw)
	return c, firstRung(r.f.lines, s) == 1
}

// genDocstringStep finds two Python lines where the second is two columns
// deeper than the first in a file whose unit is wider, takes them and the
// lines after them at least as deep, dedents the block to column 0 and adds
// a line one two-column step below the last.
func genDocstringStep(g *gen, r region) (corpusCase, bool) {
	if r.f.lang != "python" && r.f.lang != "docstring" {
		return corpusCase{}, false
	}
	starts := twoColumnSteps(r.f.lines)
	if len(starts) == 0 {
		return corpusCase{}, false
	}
	i := starts[g.rng.Intn(len(starts))]
	base := len(lead(r.f.lines[i]))
	end := i + 2
	for end < len(r.f.lines) && end-i < 6 && !blank(r.f.lines[end]) && len(lead(r.f.lines[end])) > base {
		end++
	}
	old := r.f.lines[i:end]
	for _, l := range old {
		if strings.Contains(lead(l), "\t") {
			return corpusCase{}, false
		}
	}
	last := old[len(old)-1]
	nw := append(append([]string{}, old...), lead(last)+"  wardenNote")
	dedent := func(ls []string) []string {
		out := make([]string, len(ls))
		for q, l := range ls {
			out[q] = l[base:]
		}
		return out
	}
	c := corpusCase{Variant: "dedented to column 0, a new line one two-column step deeper", Line: i + 1,
		Before: text(r.f.lines), Want: text(splice(r.f.lines, i, len(old), nw)),
		Search: text(dedent(old)), Replace: text(dedent(nw))}
	return c, count(r.f.lines, old, loose) == 1 && !hasDivider(old)
}

// twoColumnSteps lists the lines i of a four-space file (not in its first
// column) whose next line is two spaces deeper.
func twoColumnSteps(lines []string) []int {
	d := newDoc(text(lines))
	if d.indentUnit() != "    " {
		return nil
	}
	var out []int
	for i := 0; i+1 < len(lines); i++ {
		a, b := lines[i], lines[i+1]
		if !blank(a) && !blank(b) && lead(b) == lead(a)+"  " && len(lead(a)) >= 4 && strings.Trim(lead(a), " ") == "" {
			out = append(out, i)
		}
	}
	return out
}
