package repoindex

import (
	"bytes"
	"strings"
)

// The index takes the definitions of Python, JavaScript/TypeScript, Rust
// and Java from a line scanner, not from tree-sitter: parsing every file of
// a 10,000-file repository was two thirds of a cold build (9.6 of 14 s of
// CPU on ruff), and the ranking needs only the names and roughly where
// they are. Files that are shown get tree-sitter's definitions then
// (Definitions), so an outline's ranges stay exact.

// line is one line of a file as the scanner sees it.
type line struct {
	n      int    // 1-based
	indent int    // leading spaces and tabs
	text   string // without the indent, trailing space trimmed
}

// scanDefs finds lang's definitions line by line: a definition opens on a
// line that starts with its keyword (after modifiers) and closes at the
// first line indented no deeper that does not continue it — a closing
// brace is the last line of a brace language's definition.
func scanDefs(lang string, src []byte) []Def {
	match := scanners[lang]
	if match == nil {
		return nil
	}
	s := scanner{braces: lang != "python", prefix: prefixes[lang]}
	for n, raw := range lines(src) {
		text := strings.TrimRight(raw, " \t\r")
		trimmed := strings.TrimLeft(text, " \t")
		if trimmed == "" {
			continue
		}
		l := line{n: n + 1, indent: len(text) - len(trimmed), text: trimmed}
		if s.inString(l) {
			continue
		}
		s.closeTo(l)
		if name, kind, ok := match(l.text, l.indent > 0); ok && s.fits(kind) {
			s.push(l, strings.TrimSuffix(kind, "?"), name)
		}
		s.prefixed(l)
		s.last = l.n
	}
	s.closeTo(line{n: s.last + 1, indent: -1})
	return s.defs
}

// scanner is scanDefs' state: the definitions found and those still open.
type scanner struct {
	braces bool
	defs   []Def
	open   []struct{ i, indent int } // innermost last
	last   int                       // the last non-blank line
	str    bool                      // inside a Python triple-quoted string
	prefix func(text string) bool    // a line that belongs to the declaration after it
	notes  int                       // the first of such lines just before
}

// prefixes name the lines a language's declaration starts with before its
// keyword line: Java's annotations, as tree-sitter's ranges include them.
var prefixes = map[string]func(string) bool{
	"java": func(t string) bool { return t[0] == '@' && skipAnnotations(t) == "" },
}

// prefixed notes where a run of prefix lines starts.
func (s *scanner) prefixed(l line) {
	switch {
	case s.prefix != nil && s.prefix(l.text):
		if s.notes == 0 {
			s.notes = l.n
		}
	default:
		s.notes = 0
	}
}

// inString reports whether l is inside (or ends) a Python triple-quoted
// string, whose lines open or close nothing.
func (s *scanner) inString(l line) bool {
	if s.braces {
		return false
	}
	if tripleQuotes(l.text)%2 == 1 {
		s.str = !s.str
		if !s.str {
			s.last = l.n
			return true
		}
		return false
	}
	if s.str {
		s.last = l.n
	}
	return s.str
}

func (s *scanner) push(l line, kind, name string) {
	parent := ""
	if k := len(s.open); k > 0 {
		parent = s.defs[s.open[k-1].i].Name
		if kind == "func" {
			kind = "method"
		}
	}
	start := l.n
	if s.notes > 0 {
		start = s.notes
	}
	// A name is a slice of the file's text: cloned, or the index would hold
	// every file that defines something (43 MiB, not 18, per 10,000 files).
	name = strings.Clone(name)
	s.defs = append(s.defs, Def{Name: name, Kind: kind, Parent: parent, Start: start})
	s.open = append(s.open, struct{ i, indent int }{len(s.defs) - 1, l.indent})
}

// fits reports whether a definition of kind may open here: a class
// member only directly inside a class.
func (s *scanner) fits(kind string) bool {
	if kind != classMember {
		return true
	}
	k := len(s.open)
	return k > 0 && s.defs[s.open[k-1].i].Kind == "class"
}

// closeTo ends the open definitions that l, indented no deeper, does not
// continue: at the line before it, or at l when l is the closing brace.
func (s *scanner) closeTo(l line) {
	for k := len(s.open); k > 0; k = len(s.open) {
		o := s.open[k-1]
		d := &s.defs[o.i]
		if l.indent > o.indent || l.indent == o.indent && continues(l.text, s.braces) {
			return
		}
		d.End = s.last
		if s.braces && l.indent == o.indent && strings.HasPrefix(l.text, "}") {
			d.End = l.n
		}
		s.open = s.open[:k-1]
	}
}

// lines splits src at newlines without copying it.
func lines(src []byte) []string {
	s := string(src) // one copy; the lines are slices of it
	out := make([]string, 0, bytes.Count(src, []byte("\n"))+1)
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, s)
		}
		out, s = append(out, s[:i]), s[i+1:]
	}
}

// continues reports whether a line at a definition's own indent still
// belongs to it: the rest of its signature (a closing parenthesis, a
// `where` clause, a return type) rather than the next item.
func continues(text string, braces bool) bool {
	if !braces {
		return strings.HasPrefix(text, ")") || strings.HasPrefix(text, "]")
	}
	for _, p := range []string{")", "]", "{", "where", "->", "=>", ":", "|", "&", "+", ".", ","} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

func tripleQuotes(s string) int {
	return strings.Count(s, `"""`) + strings.Count(s, `'''`)
}

// word splits the leading identifier off s.
func word(s string) (w, rest string) {
	i := 0
	for i < len(s) && isIdent(s[i]) {
		i++
	}
	return s[:i], strings.TrimLeft(s[i:], " \t")
}

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// name is s's leading identifier when it is one (not a number).
func name(s string) (string, string, bool) {
	w, rest := word(s)
	if w == "" || w[0] >= '0' && w[0] <= '9' {
		return "", s, false
	}
	return w, rest, true
}

// skipWords drops the leading words of s that are in mods.
func skipWords(s string, mods map[string]bool) (string, int) {
	k := 0
	for {
		w, rest := word(s)
		if w == "" || !mods[w] {
			return s, k
		}
		s, k = rest, k+1
	}
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
