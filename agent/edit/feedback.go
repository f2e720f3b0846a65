package edit

import (
	"fmt"
	"strings"
)

const maxFeedback = 4 << 10

// feedback tells the model what happened to each block, bounded.
func feedback(res Result) string {
	var b strings.Builder
	b.WriteString("Some SEARCH/REPLACE blocks could not be applied, so no file was changed.\n")
	for _, br := range res.Blocks {
		if br.Applied {
			fmt.Fprintf(&b, "- block %d (%s): would apply (%s match)\n", br.Index, br.Path, br.Rung)
		} else {
			fmt.Fprintf(&b, "- block %d (%s): %v\n", br.Index, br.Path, br.Err)
		}
	}
	b.WriteString("Reply with all blocks again, each SEARCH copied exactly from the current file.")
	s := b.String()
	if len(s) > maxFeedback {
		s = s[:maxFeedback] + "\n[feedback cut]"
	}
	return s
}

// nearest shows the window of the file most like search: each file line
// scores its best word overlap (Jaccard) with any SEARCH line. Words are
// numbered once, so scoring a long file allocates nothing per line.
func nearest(lines, search []string) string {
	vocab := map[string]int{}
	var sets [][]bool // per SEARCH line: which vocabulary words it has
	var sizes []int
	for _, s := range search {
		ws := wordSet(s)
		if len(ws) == 0 {
			continue
		}
		for w := range ws {
			if _, ok := vocab[w]; !ok {
				vocab[w] = len(vocab)
			}
		}
		sets, sizes = append(sets, nil), append(sizes, len(ws))
		for w := range ws {
			for len(sets[len(sets)-1]) <= vocab[w] {
				sets[len(sets)-1] = append(sets[len(sets)-1], false)
			}
			sets[len(sets)-1][vocab[w]] = true
		}
	}
	n := max(len(search), 1)
	score := make([]float64, len(lines))
	seen := make([]bool, len(vocab))
	var ids []int
	for i, l := range lines {
		var other int
		ids, other = lineWords(l, vocab, seen, ids[:0])
		for k, set := range sets {
			inter := 0
			for _, id := range ids {
				if id < len(set) && set[id] {
					inter++
				}
			}
			if inter > 0 {
				score[i] = max(score[i], float64(inter)/float64(len(ids)+other+sizes[k]-inter))
			}
		}
		for _, id := range ids {
			seen[id] = false
		}
	}
	best, bestScore := 0, 0.0
	for i := range lines {
		sum := 0.0
		for j := i; j < min(i+n, len(lines)); j++ {
			sum += score[j]
		}
		if sum > bestScore {
			best, bestScore = i, sum
		}
	}
	if bestScore == 0 {
		return "    (no similar lines)"
	}
	var b strings.Builder
	for j := max(best-1, 0); j < min(best+n+1, len(lines), best+9); j++ {
		fmt.Fprintf(&b, "%5d | %s\n", j+1, lines[j])
	}
	return b.String()
}

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	addWords(out, s)
	return out
}

// addWords adds the identifier-like words of s to set, without allocating
// beyond the set itself.
func addWords(set map[string]bool, s string) {
	start := -1
	for i := 0; i <= len(s); i++ {
		word := i < len(s) && (s[i] == '_' || s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z')
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			set[s[start:i]] = true
			start = -1
		}
	}
}

// lineWords lists the vocabulary words of l once each (marking them in
// seen, which the caller clears) and counts its other words.
func lineWords(l string, vocab map[string]int, seen []bool, ids []int) ([]int, int) {
	other, start := 0, -1
	for i := 0; i <= len(l); i++ {
		word := i < len(l) && (l[i] == '_' || l[i] >= '0' && l[i] <= '9' || l[i] >= 'a' && l[i] <= 'z' || l[i] >= 'A' && l[i] <= 'Z')
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if id, ok := vocab[l[start:i]]; !ok {
				other++
			} else if !seen[id] {
				seen[id], ids = true, append(ids, id)
			}
			start = -1
		}
	}
	return ids, other
}
