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

// nearest shows the window of the file sharing the most lines with search.
func nearest(lines, search []string) string {
	want := map[string]bool{}
	for _, s := range search {
		if t := strings.TrimSpace(s); t != "" {
			want[t] = true
		}
	}
	best, bestScore := 0, -1
	n := max(len(search), 1)
	for i := 0; i < len(lines); i++ {
		score := 0
		for j := i; j < min(i+n, len(lines)); j++ {
			if want[strings.TrimSpace(lines[j])] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if bestScore <= 0 {
		return "    (no similar lines)"
	}
	var b strings.Builder
	for j := max(best-1, 0); j < min(best+max(n, 6)+1, len(lines)) && j < best+9; j++ {
		fmt.Fprintf(&b, "%5d | %s\n", j+1, lines[j])
	}
	return b.String()
}
