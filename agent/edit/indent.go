package edit

import (
	"fmt"
	"strings"
)

const tabWidth = 4

// indentRung matches a uniform indentation shift, reading a tab as tw
// columns. The ladder tries tw = 4, then 8, then 2, each on its own: a model
// that turned tabs into 8 spaces matches on the second, and every one of
// them must still find exactly one place.
func indentRung(tw int) rung {
	name := "indentation"
	if tw != tabWidth {
		name = fmt.Sprintf("indentation (tab=%d)", tw)
	}
	return rung{
		name:  name,
		match: func(f, s []string) bool { return indentMatch(f, s, tw) },
		fit:   func(f, s, r []string) []string { return reindent(f, s, r, tw) },
	}
}

// width measures leading whitespace in columns (a tab is tw).
func width(s string, tw int) (int, string) {
	w := 0
	for i, r := range s {
		switch r {
		case ' ':
			w++
		case '\t':
			w += tw
		default:
			return w, s[i:]
		}
	}
	return w, ""
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// indentMatch: every non-blank line equal after its indentation, and the
// indentation differs by the same number of columns on every line.
func indentMatch(f, s []string, tw int) bool {
	delta, set := 0, false
	for i := range s {
		fw, ft := width(trimRight(f[i]), tw)
		sw, st := width(trimRight(s[i]), tw)
		if ft != st {
			return false
		}
		if ft == "" {
			continue
		}
		if !set {
			delta, set = fw-sw, true
		} else if fw-sw != delta {
			return false
		}
	}
	return set
}

// reindent writes the replacement in the file's indentation. A line the
// model kept from SEARCH becomes the file line it matched, byte for byte; a
// new line indented like some SEARCH line takes that line's indentation in
// the file; any other line is shifted by the matched delta, in the file's
// style (tabs if the matched lines use them).
func reindent(f, s, r []string, tw int) []string {
	kept, indents := keptLines(f, s), map[string]string{}
	delta, set, tabs := 0, false, false
	for i := range s {
		tabs = tabs || strings.HasPrefix(f[i], "\t")
		if strings.TrimSpace(s[i]) == "" {
			continue
		}
		if _, ok := indents[indentOf(s[i])]; !ok {
			indents[indentOf(s[i])] = indentOf(f[i])
		}
		if !set {
			fw, _ := width(f[i], tw)
			sw, _ := width(s[i], tw)
			delta, set = fw-sw, true
		}
	}
	out := make([]string, len(r))
	for i, l := range r {
		ind, text := indentOf(l), strings.TrimLeft(l, " \t")
		fileIndent, ok := indents[ind]
		switch k, isKept := kept[l]; {
		case isKept:
			out[i] = k
		case text == "":
			out[i] = ""
		case ok:
			out[i] = fileIndent + text
		default:
			w, _ := width(ind, tw)
			out[i] = shifted(max(w+delta, 0), tw, tabs) + text
		}
	}
	return out
}

func shifted(w, tw int, tabs bool) string {
	if tabs {
		return strings.Repeat("\t", w/tw) + strings.Repeat(" ", w%tw)
	}
	return strings.Repeat(" ", w)
}

// keptLines maps each SEARCH line to the file line it matched (the first,
// if SEARCH repeats a line).
func keptLines(f, s []string) map[string]string {
	m := make(map[string]string, len(s))
	for i := range s {
		if _, ok := m[s[i]]; !ok {
			m[s[i]] = f[i]
		}
	}
	return m
}

// keepFileLines is the whitespace rung's fit: lines the model kept from
// SEARCH are written as the file has them, so drifted trailing blanks and
// CRs are not carried into the file; new lines are the model's.
func keepFileLines(f, s, r []string) []string {
	kept := keptLines(f, s)
	out := make([]string, len(r))
	for i, l := range r {
		if k, ok := kept[l]; ok {
			out[i] = k
		} else {
			out[i] = l
		}
	}
	return out
}
