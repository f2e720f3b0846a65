package edit

import (
	"strings"
)

// doc is a file as lines without their endings.
type doc struct {
	lines    []string
	eol      string
	finalEOL bool
}

func newDoc(s string) doc {
	d := doc{eol: "\n", finalEOL: strings.HasSuffix(s, "\n") || s == ""}
	if strings.Contains(s, "\r\n") {
		d.eol = "\r\n"
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s != "" {
		d.lines = strings.Split(s, "\n")
	}
	return d
}

func (d doc) String() string {
	s := strings.Join(d.lines, d.eol)
	if d.finalEOL && len(d.lines) > 0 {
		s += d.eol
	}
	return s
}

func splitText(s string) []string {
	s = strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// rung is one level of forgiveness: it compares a file line with a SEARCH
// line and, on a match, rewrites the REPLACE lines to fit the file.
type rung struct {
	name  string
	match func(file, search []string) bool
	fit   func(file, search, replace []string) []string
}

var ladder = []rung{
	{"exact", func(f, s []string) bool { return eqLines(f, s, func(x string) string { return x }) }, keep},
	{"whitespace", func(f, s []string) bool { return eqLines(f, s, trimRight) }, keepFileLines},
	indentRung(tabWidth),
	indentRung(8),
	indentRung(2),
}

func keep(_, _, r []string) []string { return r }

func trimRight(s string) string { return strings.TrimRight(s, " \t\r") }

func eqLines(f, s []string, norm func(string) string) bool {
	for i := range s {
		if norm(f[i]) != norm(s[i]) {
			return false
		}
	}
	return true
}

// find returns the places where search matches on the first rung that
// matches anywhere, with that rung. Several places: ambiguous, stop there.
func find(d doc, search []string) ([]int, rung, bool) {
	for _, r := range ladder {
		var at []int
		for i := 0; i+len(search) <= len(d.lines); i++ {
			if r.match(d.lines[i:i+len(search)], search) {
				at = append(at, i)
			}
		}
		if len(at) > 0 {
			return at, r, true
		}
	}
	return nil, rung{}, false
}

// trimBlankEdges drops blank lines at the edges of a SEARCH, and as many at
// the same edges of its REPLACE: models add and drop them freely.
func trimBlankEdges(search, replace []string) ([]string, []string) {
	for len(search) > 0 && strings.TrimSpace(search[0]) == "" {
		search = search[1:]
		if len(replace) > 0 && strings.TrimSpace(replace[0]) == "" {
			replace = replace[1:]
		}
	}
	for len(search) > 0 && strings.TrimSpace(search[len(search)-1]) == "" {
		search = search[:len(search)-1]
		if len(replace) > 0 && strings.TrimSpace(replace[len(replace)-1]) == "" {
			replace = replace[:len(replace)-1]
		}
	}
	return search, replace
}
