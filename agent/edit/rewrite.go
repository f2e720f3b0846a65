package edit

import (
	"errors"
	"fmt"
	"strings"
)

var errNotFound = errors.New("SEARCH matches nothing")

// pairs aligns SEARCH with REPLACE: the longest common subsequence of equal
// lines, as (search index, replace index) in order. A REPLACE line in a pair
// is a line the model kept, and it is written as the file has it at that
// position — not as the first file line that looked the same. Among equally
// long alignments, the one keeping more SEARCH lines that exist in the file
// wins: a blank line the model added and then deleted is not the file's.
func pairs(s, r []string, inFile func(int) bool) [][2]int {
	n, m := len(s), len(r)
	big := int32(n + 1)
	weight := func(i int) int32 {
		if inFile(i) {
			return big + 1
		}
		return big
	}
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			if s[i] == r[j] {
				dp[i][j] = max(dp[i][j], dp[i+1][j+1]+weight(i))
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case s[i] == r[j] && dp[i][j] == dp[i+1][j+1]+weight(i):
			out = append(out, [2]int{i, j})
			i, j = i+1, j+1
		case dp[i+1][j] >= dp[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// rewriter builds the lines that take the place of a match.
type rewriter struct {
	d        *doc
	p        place
	search   []string
	replace  []string
	fit      *fitter
	attached map[int][]int // SEARCH line -> file-only lines (blank lines SEARCH left out) just above it
	lines    []string
	eols     []string
	eol      string // the ending of the file line last written
}

func (d *doc) rewrite(p place, t tier, tw int, search, replace []string) ([]string, []string, error) {
	w := &rewriter{d: d, p: p, search: search, replace: replace, attached: map[int][]int{}}
	w.fit = &fitter{d: d, level: t.level, tw: tw, search: search, fileOf: p.fileOf, replace: replace}
	if w.eol = d.eols[p.start]; w.eol == "" {
		w.eol = d.mainEOL()
	}
	w.attach()
	pk, pj := -1, -1
	inFile := func(k int) bool { return p.fileOf[k] >= 0 }
	for _, pr := range append(pairs(search, replace, inFile), [2]int{len(search), len(replace)}) {
		if err := w.gap(pk, pj, pr[0], pr[1]); err != nil {
			return nil, nil, err
		}
		if pr[0] < len(search) && p.fileOf[pr[0]] >= 0 {
			w.file(p.fileOf[pr[0]])
		}
		pk, pj = pr[0], pr[1]
	}
	if w.fit.err != nil {
		return nil, nil, w.fit.err
	}
	w.fixEnds()
	return w.lines, w.eols, nil
}

// attach assigns each file line of the region that no SEARCH line matched
// to the next SEARCH line that has a file line.
func (w *rewriter) attach() {
	mapped := map[int]bool{}
	for _, f := range w.p.fileOf {
		if f >= 0 {
			mapped[f] = true
		}
	}
	var pending []int
	for x := w.p.start; x < w.p.end; x++ {
		if !mapped[x] {
			pending = append(pending, x)
			continue
		}
		if len(pending) > 0 {
			for k, f := range w.p.fileOf {
				if f == x {
					w.attached[k] = pending
				}
			}
			pending = nil
		}
	}
}

// gap writes what lies between two kept lines: the deleted SEARCH lines
// (pk, k) give way to the new REPLACE lines (pj, j); the file's own blank
// lines that SEARCH left out stay, unless new lines could go on either side
// of them — then the block is refused, not guessed.
func (w *rewriter) gap(pk, pj, k, j int) error {
	del, ins := ints(pk+1, k), ints(pj+1, j)
	// the new lines go just above SEARCH line k (anchor)
	w.fit.at = k
	groups := make([][]int, len(del)+1) // file-only lines above each deleted line and above k
	total, nonBlankIns := 0, false
	for m, s := range append(del, k) {
		groups[m] = w.attached[s]
		total += len(groups[m])
	}
	for _, r := range ins {
		nonBlankIns = nonBlankIns || strings.TrimSpace(w.replace[r]) != ""
	}
	switch {
	case total == 0:
		w.newLines(ins, del)
	case !nonBlankIns:
		w.files(groups...)
	case countBlank(w.replace, ins) == total:
		// REPLACE, copied from the file, has the blank lines SEARCH left
		// out: they are the file's, in REPLACE's places, written once.
		w.interleave(ins, del, groups)
	case len(del) == len(ins):
		for m := range del {
			w.files(groups[m])
			w.newLine(ins[m], del[m])
		}
		w.files(groups[len(del)])
	case len(del) > 0 && total == len(groups[0]):
		w.files(groups[0])
		w.newLines(ins, nil)
	case len(del) > 0 && total == len(groups[len(del)]):
		w.newLines(ins, nil)
		w.files(groups[len(del)])
	default:
		return fmt.Errorf("SEARCH leaves out blank lines the file has at line %d, and REPLACE adds lines there: it is not clear on which side of them the new lines go; copy SEARCH exactly from the file",
			groups[firstNonEmpty(groups)][0]+1)
	}
	return nil
}

func countBlank(lines []string, at []int) int {
	n := 0
	for _, i := range at {
		if strings.TrimSpace(lines[i]) == "" {
			n++
		}
	}
	return n
}

// interleave writes REPLACE lines ins in order, each blank one as the next
// of the file's own left-out lines (groups, in file order).
func (w *rewriter) interleave(ins, del []int, groups [][]int) {
	var own []int
	for _, g := range groups {
		own = append(own, g...)
	}
	used := map[int]bool{}
	for _, r := range ins {
		if strings.TrimSpace(w.replace[r]) == "" {
			w.file(own[0])
			own = own[1:]
			continue
		}
		w.newLine(r, w.similarUnused(r, del, used))
	}
}

func firstNonEmpty(groups [][]int) int {
	for i, g := range groups {
		if len(g) > 0 {
			return i
		}
	}
	return 0
}

func ints(from, to int) []int {
	out := make([]int, 0, max(to-from, 0))
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func (w *rewriter) files(groups ...[]int) {
	for _, g := range groups {
		for _, x := range g {
			w.file(x)
		}
	}
}

func (w *rewriter) file(x int) {
	w.lines, w.eols = append(w.lines, w.d.lines[x]), append(w.eols, w.d.eols[x])
	if w.d.eols[x] != "" {
		w.eol = w.d.eols[x]
	}
}

// fixEnds: only the file's last line may lack an ending, and it keeps that
// lack when the match reached it.
func (w *rewriter) fixEnds() {
	for i := range w.eols {
		if w.eols[i] == "" {
			w.eols[i] = w.eol
		}
	}
	if n := len(w.eols); n > 0 && w.p.end == len(w.d.lines) && w.d.eols[w.p.end-1] == "" {
		w.eols[n-1] = ""
	}
}
