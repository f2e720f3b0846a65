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
// scores its best word overlap with any SEARCH line.
func nearest(lines, search []string) string {
	words := make([]map[string]bool, 0, len(search))
	for _, s := range search {
		if ws := wordSet(s); len(ws) > 0 {
			words = append(words, ws)
		}
	}
	n := max(len(search), 1)
	score := make([]float64, len(lines))
	for i, l := range lines {
		lw := wordSet(l)
		for _, sw := range words {
			score[i] = max(score[i], jaccard(lw, sw))
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
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		out[w] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
