package edit

// How a new REPLACE line is written: which deleted SEARCH line it takes the
// place of, and the trailing blanks, indentation and inner spacing it gets
// from the file there.

import (
	"fmt"
	"regexp"
	"strings"
)

// newLines writes REPLACE lines ins. With as many deleted lines, each takes
// the place of one; otherwise a new line takes the place of the first unused
// deleted line that has its words but one.
func (w *rewriter) newLines(ins, del []int) {
	used := map[int]bool{}
	for m, r := range ins {
		sub := -1
		if len(del) == len(ins) {
			sub = del[m]
		} else {
			sub = w.similarUnused(r, del, used)
		}
		w.newLine(r, sub)
	}
}

// similarUnused is the first deleted line not yet taken that REPLACE line r
// resembles (similar), marked taken; -1 if none.
func (w *rewriter) similarUnused(r int, del []int, used map[int]bool) int {
	for _, k := range del {
		if !used[k] && similar(w.replace[r], w.search[k]) {
			used[k] = true
			return k
		}
	}
	return -1
}

// similar: the same number of words, at most one of them different.
func similar(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) || len(fa) == 0 {
		return false
	}
	diff := 0
	for i := range fa {
		if fa[i] != fb[i] {
			diff++
		}
	}
	return diff <= 1
}

func (w *rewriter) newLine(r, sub int) {
	w.lines, w.eols = append(w.lines, w.fit.fit(w.replace[r], sub)), append(w.eols, w.eol)
}

// trail gives REPLACE line r its trailing blanks, kept per line. A line
// that takes the place of a matched line and ends as that SEARCH line or
// that file line does ends as the file line: the model left its ending
// alone, and blanks the file has (a JSON line ending ", ") are the file's
// to keep. Otherwise, when the model padded lines the file writes without,
// its lines lose their trailing blanks.
func (f *fitter) trail(r string, sub int) string {
	body := trimRight(r)
	if sub >= 0 && f.fileOf[sub] >= 0 {
		fl := f.d.lines[f.fileOf[sub]]
		rt, ft := r[len(body):], fl[len(trimRight(fl)):]
		if rt == ft || rt == f.search[sub][len(trimRight(f.search[sub])):] {
			return body + ft
		}
	}
	if f.trailing {
		return body
	}
	return r
}

// anchor is the file indentation of the SEARCH lines the model indented sw
// columns. They differ only in a file that mixes tabs and spaces for the
// same column (four spaces and a tab at tab width 4); then the nearest such
// line above the new line and the nearest below must agree, or no single
// indentation is meant and the block is refused.
func (f *fitter) anchor(sw int) (string, error) {
	var at []int // SEARCH lines indented sw, in order
	for i, s := range f.search {
		if f.fileOf[i] >= 0 && strings.TrimSpace(s) != "" && width(indentOf(s), f.tw) == sw {
			at = append(at, i)
		}
	}
	first := f.fileIndent(at[0])
	agree := true
	for _, i := range at[1:] {
		agree = agree && f.fileIndent(i) == first
	}
	if agree {
		return first, nil
	}
	above, below := -1, -1
	for _, i := range at {
		if i < f.at {
			above = i
		} else if below < 0 {
			below = i
		}
	}
	switch {
	case above < 0:
		return f.fileIndent(below), nil
	case below < 0 || f.fileIndent(above) == f.fileIndent(below):
		return f.fileIndent(above), nil
	}
	return f.fileIndent(above), fmt.Errorf("is indented like lines %d and %d, which the file indents differently (%q, %q): it is not clear which it follows",
		f.fileOf[above]+1, f.fileOf[below]+1, f.fileIndent(above), f.fileIndent(below))
}

func (f *fitter) fileIndent(i int) string { return indentOf(f.d.lines[f.fileOf[i]]) }

var blankRun = regexp.MustCompile(`[ \t]+`)

// respace gives a changed line the file's inner spacing: each run of blanks
// the model typed as in the SEARCH line it replaces, between words that
// are still there, is written as the file has it (a renamed field stays
// aligned as the file had it); from the first run that differs on, the
// model's spacing stands.
func respace(text, search, file string) string {
	t, s, fl := strings.TrimSpace(text), strings.TrimSpace(search), strings.TrimSpace(file)
	tr, sr, fr := blankRun.FindAllStringIndex(t, -1), blankRun.FindAllStringIndex(s, -1), blankRun.FindAllStringIndex(fl, -1)
	if len(sr) != len(fr) {
		return text
	}
	tf, sf := strings.Fields(t), strings.Fields(s)
	var b strings.Builder
	last := 0
	for i := 0; i < min(len(tr), len(sr)); i++ {
		if t[tr[i][0]:tr[i][1]] != s[sr[i][0]:sr[i][1]] || tf[i] != sf[i] && tf[i+1] != sf[i+1] {
			break
		}
		b.WriteString(t[last:tr[i][0]])
		b.WriteString(fl[fr[i][0]:fr[i][1]])
		last = tr[i][1]
	}
	if last == 0 {
		return text
	}
	b.WriteString(t[last:])
	return b.String() + text[len(strings.TrimRight(text, " \t")):]
}
