package edit

import "strings"

const tabWidth = 4

// width measures leading whitespace in columns (a tab is tabWidth).
func width(s string) (int, string) {
	w := 0
	for i, r := range s {
		switch r {
		case ' ':
			w++
		case '\t':
			w += tabWidth
		default:
			return w, s[i:]
		}
	}
	return w, ""
}

// indentMatch: every non-blank line equal after its indentation, and the
// indentation differs by the same number of columns on every line.
func indentMatch(f, s []string) bool {
	delta, set := 0, false
	for i := range s {
		fw, ft := width(trimRight(f[i]))
		sw, st := width(trimRight(s[i]))
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

// reindent shifts the replacement by the matched delta, in the file's style.
func reindent(f, s, r []string) []string {
	delta := 0
	for i := range s {
		fw, ft := width(f[i])
		sw, _ := width(s[i])
		if ft != "" {
			delta = fw - sw
			break
		}
	}
	tabs := false
	for _, l := range f {
		if strings.HasPrefix(l, "\t") {
			tabs = true
			break
		}
	}
	out := make([]string, len(r))
	for i, l := range r {
		w, text := width(l)
		if text == "" {
			out[i] = ""
			continue
		}
		w = max(w+delta, 0)
		if tabs {
			out[i] = strings.Repeat("\t", w/tabWidth) + strings.Repeat(" ", w%tabWidth) + text
		} else {
			out[i] = strings.Repeat(" ", w) + text
		}
	}
	return out
}
