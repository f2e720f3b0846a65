package repocontext

import (
	"math"
	"sort"
	"strings"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// Scored is a file with its rank score and why it scored.
type Scored struct {
	File    int // index into Index.Files
	Score   float64
	Lexical float64
	Hits    []string // definitions the issue names, in this file
}

// BM25 parameters: the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Weights of the code-specific signals, in BM25 units (a good lexical match
// scores 10 to 30, and scaleLexical keeps the best at lexTop). A path named
// in the text, above all with a line from a stack trace, is near-certain; an
// error string found verbatim in one file is strong; a definition the issue
// names is strong when few files define it.
const (
	wPath       = 40
	wTraceLine  = 25
	wDir        = 4
	wLiteral    = 18
	wDef        = 10
	wTestToCode = 0.6
)

// kindFactor ranks files down by kind: the fix is almost always in source.
var kindFactor = map[repoindex.Kind]float64{
	repoindex.Source: 1, repoindex.Test: 0.35, repoindex.Doc: 0.25, repoindex.Config: 0.4,
	repoindex.Generated: 0.08, repoindex.Vendored: 0.04, repoindex.Binary: 0,
}

// BM25 is the plain lexical ranking over code-aware terms, with no
// code-specific signals: the benchmark's baseline.
func BM25(x *repoindex.Index, q Query) []float64 {
	scores := make([]float64, len(x.Files))
	n := float64(len(x.Files))
	for term, qw := range q.Terms {
		posts := x.TermFiles(term)
		if len(posts) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(posts))+0.5)/(float64(len(posts))+0.5))
		for _, p := range posts {
			fi, tf := int(p>>8), float64(p&0xff)
			norm := 1 - bm25B + bm25B*float64(x.Files[fi].Len)/math.Max(x.AvgLen, 1)
			scores[fi] += float64(qw) * idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
		}
	}
	return scores
}

// Rank orders the files for the issue, best first; files scoring nothing
// are left out.
func Rank(x *repoindex.Index, q Query) []Scored {
	lex := scaleLexical(BM25(x, q))
	s := make([]Scored, len(x.Files))
	for i := range s {
		s[i] = Scored{File: i, Lexical: lex[i], Score: lex[i]}
	}
	pathSignals(x, q, s)
	defSignals(x, q, s)
	scopeSignals(x, q, s)
	literalSignals(x, q, s)
	for i := range s {
		s[i].Score *= kindFactor[x.Files[i].Kind]
	}
	demotePeriphery(x, q, s)
	testsToCode(x, s)
	neighborSignals(x, s)
	sort.SliceStable(s, func(a, b int) bool { return s[a].Score > s[b].Score })
	end := len(s)
	for end > 0 && s[end-1].Score <= 0 {
		end--
	}
	return s[:end]
}

// lexTop is what the best lexical match is scaled to when it scores more:
// BM25 grows with the length (a body quoting code repeats its
// words), while the signals below are fixed, and a long issue's lexical
// noise drowned them.
const lexTop = 30

func scaleLexical(lex []float64) []float64 {
	top := 0.0
	for _, v := range lex {
		top = max(top, v)
	}
	if top <= lexTop {
		return lex
	}
	for i := range lex {
		lex[i] *= lexTop / top
	}
	return lex
}

// pathSignals boosts files whose path the text names (by suffix: traces
// carry module prefixes) and, a little, the files of directories it names.
// A name that many files end with ("module-info.java", "mod.rs",
// "__init__.py") points at none of them: its weight is shared.
func pathSignals(x *repoindex.Index, q Query, s []Scored) {
	var match []int
	for _, ref := range q.Paths {
		p := ref.Path
		match = match[:0]
		for i, f := range x.Files {
			if f.Path == p || strings.HasSuffix("/"+p, "/"+f.Path) || strings.HasSuffix(f.Path, "/"+p) {
				match = append(match, i)
			}
		}
		for _, i := range match {
			s[i].Score += wPath / float64(len(match))
			if ref.Line > 0 && ref.Line <= x.Files[i].Lines {
				s[i].Score += wTraceLine / float64(len(match))
			}
		}
	}
	for _, id := range q.Idents {
		if !strings.Contains(id, "/") {
			continue
		}
		for i, f := range x.Files {
			if strings.HasPrefix(f.Path, strings.Trim(id, "/")+"/") {
				s[i].Score += wDir
			}
		}
	}
}

// defSignals boosts the files defining an identifier the text names,
// weighted by how rare the name is among definitions.
func defSignals(x *repoindex.Index, q Query, s []Scored) {
	if len(q.Idents) == 0 {
		return
	}
	want := map[string]bool{}
	for _, id := range q.Idents {
		want[id] = true
	}
	where := map[string][]int{}
	for i, f := range x.Files {
		for _, d := range f.Defs {
			if want[d.Name] {
				where[d.Name] = append(where[d.Name], i)
			}
		}
	}
	for name, files := range where {
		files = uniq(files)
		w := wDef / math.Sqrt(float64(len(files)))
		if len(files) > 40 {
			continue
		}
		for _, i := range files {
			s[i].Score += w
			s[i].Hits = append(s[i].Hits, name)
		}
	}
}

// literalSignals boosts files holding a string literal that the text quotes
// verbatim (an error message, a log line), weighted down when many files
// share it.
func literalSignals(x *repoindex.Index, q Query, s []Scored) {
	text := strings.ToLower(q.Text)
	for li, lit := range x.Literals {
		if !strings.Contains(text, lit) {
			continue
		}
		files := x.LiteralFiles(li)
		if len(files) > 10 {
			continue
		}
		w := wLiteral * math.Min(1, float64(len(lit))/30) / float64(len(files))
		for _, fi := range files {
			s[fi].Score += w
		}
	}
}

func uniq(xs []int) []int {
	out := xs[:0]
	for i, v := range xs {
		if i == 0 || v != xs[i-1] {
			out = append(out, v)
		}
	}
	return out
}
