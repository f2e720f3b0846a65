package edit

import "strings"

// doc is a file as lines, each with its own ending, so a line the edit does
// not touch is written back byte for byte whatever the rest of the file uses.
type doc struct {
	lines []string // text without the ending
	eols  []string // "\n", "\r\n", or "" for a last line without one
	unit  string   // the file's indentation unit, inferred once (indentUnit)
	keys  []key    // comparison forms of lines, built once per edit
	cand  [2][]int // line numbers: all, and the non-blank ones (candidates)
}

func newDoc(s string) doc {
	var d doc
	for _, part := range strings.SplitAfter(s, "\n") {
		if part == "" {
			continue
		}
		switch {
		case strings.HasSuffix(part, "\r\n"):
			d.lines, d.eols = append(d.lines, part[:len(part)-2]), append(d.eols, "\r\n")
		case strings.HasSuffix(part, "\n"):
			d.lines, d.eols = append(d.lines, part[:len(part)-1]), append(d.eols, "\n")
		default:
			d.lines, d.eols = append(d.lines, part), append(d.eols, "")
		}
	}
	return d
}

func (d *doc) String() string {
	var b strings.Builder
	for i, l := range d.lines {
		b.WriteString(l)
		b.WriteString(d.eols[i])
	}
	return b.String()
}

// mainEOL is the ending most lines use; "\n" for a file without any.
func (d *doc) mainEOL() string {
	crlf, lf := 0, 0
	for _, e := range d.eols {
		switch e {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}

func (d *doc) splice(at, n int, lines, eols []string) {
	d.lines = append(append(append([]string{}, d.lines[:at]...), lines...), d.lines[at+n:]...)
	d.eols = append(append(append([]string{}, d.eols[:at]...), eols...), d.eols[at+n:]...)
	d.keys, d.cand = nil, [2][]int{}
}

func (d *doc) clone() *doc {
	c := *d
	c.lines, c.eols = append([]string{}, d.lines...), append([]string{}, d.eols...)
	return &c
}

func splitText(s string) []string {
	s = strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
