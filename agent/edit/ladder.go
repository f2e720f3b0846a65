package edit

import (
	"fmt"
	"strings"
)

func trimRight(s string) string { return strings.TrimRight(s, " \t\r") }

// key holds the forms of a line each level of forgiveness compares.
type key struct {
	raw, trim, lead, content, coll string
}

func keyOf(s string) key {
	t := trimRight(s)
	c := strings.TrimLeft(t, " \t")
	return key{raw: s, trim: t, lead: t[:len(t)-len(c)], content: c, coll: collapse(c)}
}

func keysOf(lines []string) []key {
	out := make([]key, len(lines))
	for i, l := range lines {
		out[i] = keyOf(l)
	}
	return out
}

// collapse turns every run of inner blanks into one space: gofmt
// alignment retyped by a model still compares equal.
func collapse(s string) string {
	if !strings.Contains(s, "  ") && !strings.Contains(s, "\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// Levels of forgiveness, in the order the ladder tries them.
const (
	levelExact = iota
	levelTrailing
	levelIndent    // a uniform indentation shift, tabs read as tw columns
	levelAlignment // also runs of inner blanks compared as one
)

// tier is one rung of the ladder. A tier with several tab widths searches
// with each and must find one place across all of them: two readings of a
// tab that find two places mean the block names no single place.
type tier struct {
	name      string
	level     int
	skipBlank bool // compare non-blank lines only: blank lines added or dropped inside SEARCH
	tws       []int
}

var ladder = buildLadder()

func buildLadder() []tier {
	tabs := []int{tabWidth, 8, 2}
	base := []tier{
		{name: "exact", level: levelExact, tws: []int{tabWidth}},
		{name: "whitespace", level: levelTrailing, tws: []int{tabWidth}},
		{name: "indentation", level: levelIndent, tws: tabs},
		{name: "alignment", level: levelAlignment, tws: tabs},
	}
	out := append([]tier{}, base...)
	for _, t := range base {
		t.skipBlank = true
		t.name = "blank-lines+" + t.name
		if t.level == levelExact {
			t.name = "blank-lines"
		}
		out = append(out, t)
	}
	return out
}

func (t tier) nameFor(tw int) string {
	if tw != tabWidth && t.level >= levelIndent {
		return fmt.Sprintf("%s (tab=%d)", t.name, tw)
	}
	return t.name
}

// place is where a SEARCH matched: the file lines [start, end) and, for each
// SEARCH line, the file line it matched (-1: a blank line the file lacks).
type place struct {
	start, end int
	fileOf     []int
}

// locate finds the one place the first matching tier names (among the
// tiers that skip blank lines, or those that do not). It returns
// errAmbiguous when that tier finds several, and nil places when none does.
func (d *doc) locate(search []string, skipBlank bool) (place, tier, int, error) {
	if d.keys == nil {
		d.keys = keysOf(d.lines)
	}
	sk := keysOf(search)
	for _, t := range ladder {
		if t.skipBlank != skipBlank {
			continue
		}
		var found []place
		tw := 0
		for _, w := range t.tws {
			for _, p := range d.places(t, w, sk) {
				if !containsPlace(found, p) {
					found = append(found, p)
					if tw == 0 {
						tw = w
					}
				}
			}
		}
		switch {
		case len(found) == 1:
			return found[0], t, tw, nil
		case len(found) > 1:
			starts := make([]int, len(found))
			for i, p := range found {
				starts[i] = p.start
			}
			return place{}, t, tw, fmt.Errorf("SEARCH matches %d places (lines %s, compared %s); add surrounding lines so it matches exactly one",
				len(found), lineList(starts), t.name)
		}
	}
	return place{}, tier{}, 0, errNotFound
}

func containsPlace(ps []place, p place) bool {
	for _, q := range ps {
		if q.start == p.start && q.end == p.end {
			return true
		}
	}
	return false
}

// places lists every window of the file that matches sk on tier t.
func (d *doc) places(t tier, tw int, sk []key) []place {
	idx := make([]int, 0, len(sk)) // the SEARCH lines compared
	for i, k := range sk {
		if !t.skipBlank || k.content != "" {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	cand := d.candidates(t.skipBlank)
	var out []place
	for p := 0; p+len(idx) <= len(cand); p++ {
		if !d.matchAt(t.level, tw, cand[p:p+len(idx)], sk, idx) {
			continue
		}
		fileOf := make([]int, len(sk))
		for i := range fileOf {
			fileOf[i] = -1
		}
		for q, si := range idx {
			fileOf[si] = cand[p+q]
		}
		if t.skipBlank {
			d.pairBlanks(sk, fileOf)
		}
		out = append(out, place{start: cand[p], end: cand[p+len(idx)-1] + 1, fileOf: fileOf})
	}
	return out
}

// pairBlanks matches, between two matched lines, SEARCH's blank lines with
// the file's, in order, so that a blank line REPLACE deletes is deleted;
// only the file's extra blank lines are left to keep.
func (d *doc) pairBlanks(sk []key, fileOf []int) {
	prev := -1
	for k := range sk {
		if fileOf[k] < 0 {
			continue
		}
		if prev >= 0 {
			var blanks []int
			for si := prev + 1; si < k; si++ {
				blanks = append(blanks, si)
			}
			for q, x := 0, fileOf[prev]+1; q < len(blanks) && x < fileOf[k]; q, x = q+1, x+1 {
				fileOf[blanks[q]] = x
			}
		}
		prev = k
	}
}

// candidates are the file lines a window may use: all, or the non-blank.
func (d *doc) candidates(skipBlank bool) []int {
	if d.cand[0] == nil {
		for i, k := range d.keys {
			d.cand[0] = append(d.cand[0], i)
			if k.content != "" {
				d.cand[1] = append(d.cand[1], i)
			}
		}
	}
	if skipBlank {
		return d.cand[1]
	}
	return d.cand[0]
}

// matchAt compares file lines fl[q] with SEARCH lines sk[idx[q]].
func (d *doc) matchAt(level, tw int, fl []int, sk []key, idx []int) bool {
	delta, set := 0, false
	for q, si := range idx {
		f, s := d.keys[fl[q]], sk[si]
		switch level {
		case levelExact:
			if f.raw != s.raw {
				return false
			}
			continue
		case levelTrailing:
			if f.trim != s.trim {
				return false
			}
			continue
		case levelIndent:
			if f.content != s.content {
				return false
			}
		default:
			if f.coll != s.coll {
				return false
			}
		}
		if f.content == "" {
			continue
		}
		fw, sw := width(f.lead, tw), width(s.lead, tw)
		if !set {
			delta, set = fw-sw, true
		} else if fw-sw != delta {
			return false
		}
	}
	return level < levelIndent || set
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
