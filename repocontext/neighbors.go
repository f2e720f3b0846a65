package repocontext

import (
	"sort"
	"strings"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// A fix often spans the file an issue is about and a file defining what
// that one uses: the helper it calls, the type it builds, the visitor it
// runs; or a file using what it defines: the caller that builds the
// wrong input, the encoder that runs the filter. Such a file rarely shares
// the words, so it ranked far down (issue #30: two-file fixes in
// Rust, Python and Go kept their second file out of view). The files one
// step away from the best files, through a rare name, get a share of those
// files' score: enough to be outlined, not to displace them.
const (
	neighborFrom     = 6   // best source files whose links are followed
	neighborShare    = 0.2 // of the best linked file's score
	neighborDefiners = 2   // a name defined in more files says little
	neighborUsers    = 5   // nor one that more files than this mention
	// neighborCap bounds the score a share is taken of: what the issue's
	// words and a named definition give a file (lexTop + wDef). A path
	// with a trace line scores a file 300 and more; a fifth of that put
	// every file its top file imports above the files the words
	// rank (typeorm's query builder pulled in 25 files, and the trace's
	// last frame, where the fix was, fell to 40th).
	neighborCap = lexTop + wDef
)

// neighborSignals adds the share to the definers of names the best files
// mention and to the users of names they define. Only names of two words or
// more count ("CompileKind", "is_float_nan"): a one-word name is mostly an
// English word.
func neighborSignals(x *repoindex.Index, s []Scored) {
	from := bestSources(x, s, neighborFrom)
	if len(from) == 0 {
		return
	}
	// One pass over the definitions keeps the names a best file mentions,
	// with their definers: a map of every name cost more than the ranking.
	mentioned := map[string][]int{}
	for i, f := range x.Files {
		if f.Kind != repoindex.Source {
			continue
		}
		for _, d := range f.Defs {
			if !looksLikeCode(d.Name) {
				continue
			}
			n := strings.ToLower(d.Name)
			fs, seen := mentioned[n]
			if !seen && !mentionedBy(x.TermFiles(n), from) {
				continue
			}
			if len(fs) == 0 || fs[len(fs)-1] != i {
				mentioned[n] = append(fs, i)
			}
		}
	}
	linked := map[[2]int]bool{}
	for name, files := range mentioned {
		if len(files) > neighborDefiners {
			continue
		}
		posts := x.TermFiles(name)
		for _, a := range from {
			if !holds(posts, a) {
				continue
			}
			for _, b := range files {
				if b != a {
					linked[[2]int{a, b}] = true
				}
			}
		}
	}
	usersOf(x, from, linked)
	// A file takes its share of the best file it is linked to, not the sum
	// over all of them: a helper every best file calls (an error type, a
	// shared utility) summed its shares into the top ten over the files the
	// issue's words rank there.
	add := make(map[int]float64, len(linked))
	for pair := range linked {
		add[pair[1]] = max(add[pair[1]], neighborShare*min(s[pair[0]].Score, neighborCap))
	}
	for b, v := range add {
		s[b].Score += v
	}
}

// usersOf links each best file to the few source files that mention a
// name it defines: its callers, one step up.
func usersOf(x *repoindex.Index, from []int, linked map[[2]int]bool) {
	for _, a := range from {
		for _, d := range x.Files[a].Defs {
			if !looksLikeCode(d.Name) {
				continue
			}
			posts := x.TermFiles(strings.ToLower(d.Name))
			if len(posts) > neighborUsers+1 { // the definer holds it too
				continue
			}
			for _, p := range posts {
				if b := int(p >> 8); b != a && x.Files[b].Kind == repoindex.Source {
					linked[[2]int{a, b}] = true
				}
			}
		}
	}
}

// mentionedBy says whether any of the files holds the term.
func mentionedBy(posts []uint32, files []int) bool {
	for _, a := range files {
		if holds(posts, a) {
			return true
		}
	}
	return false
}

// bestSources are the indices of the n best-scoring source files.
func bestSources(x *repoindex.Index, s []Scored, n int) []int {
	var idx []int
	for i := range s {
		if x.Files[i].Kind == repoindex.Source && s[i].Score > 0 {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return s[idx[a]].Score > s[idx[b]].Score })
	return idx[:min(n, len(idx))]
}

// holds says whether a term's postings (ascending by file) include file i.
func holds(posts []uint32, i int) bool {
	k := sort.Search(len(posts), func(j int) bool { return int(posts[j]>>8) >= i })
	return k < len(posts) && int(posts[k]>>8) == i
}
