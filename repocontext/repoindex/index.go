// Package repoindex indexes a repository checkout for localization: each
// file's path, size, language and kind, its definitions (functions, types,
// methods with line ranges) and an inverted index of code-aware terms, built
// once per commit and cached as a file under the data dir (format.go).
package repoindex

import (
	"regexp"
	"strings"
	"time"
)

// Version changes whenever the index layout or its tokenization does, so a
// cache written by another version is rebuilt instead of misread.
const Version = 9 // 6: tracked regular files only; 7: its own file layout, not gob; 8: scanned definitions; 9: dot directories, markup, property and templated files classified

// Def is one definition in a file.
type Def struct {
	Name, Kind, Parent string
	Start, End         int // 1-based lines, inclusive
	Doc                int // first line of its doc comment, 0 if none
}

// File is one indexed file.
type File struct {
	Path  string
	Size  int64
	Lang  string
	Kind  Kind
	Lines int
	Len   int // terms indexed, for BM25's length normalization
	Defs  []Def
}

// Index is a repository at one commit.
type Index struct {
	Version  int
	Commit   string
	Files    []File
	Terms    []string // vocabulary
	Post     []uint32 // postings of all terms, each file<<8 | min(tf, 255)
	PostAt   []uint32 // term i's postings are Post[PostAt[i]:PostAt[i+1]]
	Literals []string // string-literal fragments, lower-cased
	Lit      []uint32 // files holding each literal, flat like Post
	LitAt    []uint32
	AvgLen   float64
	Built    time.Duration

	termIDs map[string]int
	byPath  map[string]int
}

// TermFiles returns the postings of a term (nil when absent).
func (x *Index) TermFiles(term string) []uint32 {
	x.ensureMaps()
	if id, ok := x.termIDs[term]; ok {
		return x.Post[x.PostAt[id]:x.PostAt[id+1]]
	}
	return nil
}

// LiteralFiles returns the files holding literal i.
func (x *Index) LiteralFiles(i int) []uint32 { return x.Lit[x.LitAt[i]:x.LitAt[i+1]] }

// flatten lays per-key lists end to end: flat slices decode far faster
// than slices of slices, and decoding is most of a warm `bot context`.
func flatten(lists [][]uint32) (flat, at []uint32) {
	at = make([]uint32, 0, len(lists)+1)
	for _, l := range lists {
		at = append(at, uint32(len(flat)))
		flat = append(flat, l...)
	}
	return flat, append(at, uint32(len(flat)))
}

// Lookup returns the file index of a path, or -1.
func (x *Index) Lookup(p string) int {
	x.ensureMaps()
	if i, ok := x.byPath[p]; ok {
		return i
	}
	return -1
}

func (x *Index) ensureMaps() {
	if x.termIDs != nil {
		return
	}
	x.termIDs = make(map[string]int, len(x.Terms))
	for i, t := range x.Terms {
		x.termIDs[t] = i
	}
	x.byPath = make(map[string]int, len(x.Files))
	for i, f := range x.Files {
		x.byPath[f.Path] = i
	}
}

// minLiteral is the shortest string-literal fragment worth matching against
// issue text: shorter ones ("error", "%s: %v") match everything.
const minLiteral = 12

var (
	formatVerb = regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z]|\{[^{}]*\}|\\[nt"']`)
)

// quotedStrings finds string literals in source of any language: runs
// between matching quotes on one line (a hand scanner: a regular expression
// here was a fifth of the build time).
func quotedStrings(src string) []string {
	var out []string
	for i := 0; i < len(src); i++ {
		q := src[i]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		j := i + 1
		for j < len(src) && src[j] != q && src[j] != '\n' {
			if src[j] == '\\' {
				j++
			}
			j++
		}
		if j < len(src) && src[j] == q {
			if n := j - i - 1; n >= minLiteral && n <= 300 {
				out = append(out, src[i+1:j])
			}
			i = j
		}
	}
	return out
}

// LiteralFragments splits a literal at format verbs and placeholders and
// keeps the fragments long enough to identify it, lower-cased: the message
// "open %s: permission denied" is found in an issue that quotes
// "open /etc/x: permission denied".
func LiteralFragments(s string) []string {
	var out []string
	for _, f := range formatVerb.Split(s, -1) {
		f = strings.ToLower(strings.TrimSpace(f))
		if len(f) >= minLiteral && strings.Count(f, " ") >= 1 {
			out = append(out, f)
		}
	}
	return out
}
