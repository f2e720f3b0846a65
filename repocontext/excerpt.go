package repocontext

import (
	"fmt"
	"sort"
	"strings"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// Excerpt returns src whole when it fits in maxBytes; otherwise the file's
// head (package clause, imports) and the definitions named in names, each
// with a few lines around it, in file order, with a marker for every run of
// lines left out. It never cuts a definition blindly at a byte count: a named
// definition too large for what is left is given by its first and last
// lines. whole reports whether nothing was left out.
func Excerpt(src string, defs []repoindex.Def, names []string, maxBytes int) (text string, whole bool) {
	if len(src) <= maxBytes {
		return src, true
	}
	lines := strings.SplitAfter(src, "\n")
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var spans [][2]int // 1-based inclusive line ranges
	spans = append(spans, [2]int{1, headEnd(defs, len(lines))})
	for _, d := range defs {
		if want[d.Name] || want[d.Parent+"."+d.Name] {
			start := d.Start
			if d.Doc > 0 {
				start = d.Doc
			}
			spans = append(spans, [2]int{start - 2, d.End + 2})
		}
	}
	spans = merge(spans, len(lines))
	return render(lines, spans, maxBytes), false
}

// headEnd is the last line of the file's head: up to the first definition,
// at most 40 lines.
func headEnd(defs []repoindex.Def, n int) int {
	end := min(40, n)
	for _, d := range defs {
		first := d.Start
		if d.Doc > 0 {
			first = d.Doc
		}
		if first-1 < end {
			end = max(first-1, 1)
		}
	}
	return end
}

func merge(spans [][2]int, n int) [][2]int {
	for i := range spans {
		spans[i][0] = max(spans[i][0], 1)
		spans[i][1] = min(spans[i][1], n)
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a][0] < spans[b][0] })
	var out [][2]int
	for _, s := range spans {
		if len(out) > 0 && s[0] <= out[len(out)-1][1]+1 {
			out[len(out)-1][1] = max(out[len(out)-1][1], s[1])
			continue
		}
		out = append(out, s)
	}
	return out
}

// render writes the spans with omission markers, keeping within maxBytes by
// shortening the last spans to their first and last lines.
func render(lines []string, spans [][2]int, maxBytes int) string {
	var b strings.Builder
	prev := 0
	for _, s := range spans {
		if s[0] > prev+1 {
			fmt.Fprintf(&b, "⋮ (lines %d-%d not shown)\n", prev+1, s[0]-1)
		}
		size := 0
		for i := s[0]; i <= s[1]; i++ {
			size += len(lines[i-1])
		}
		if b.Len()+size > maxBytes && s[1]-s[0] > 6 {
			for i := s[0]; i < s[0]+3; i++ {
				b.WriteString(lines[i-1])
			}
			fmt.Fprintf(&b, "⋮ (lines %d-%d not shown)\n", s[0]+3, s[1]-3)
			for i := s[1] - 2; i <= s[1]; i++ {
				b.WriteString(lines[i-1])
			}
		} else {
			for i := s[0]; i <= s[1]; i++ {
				b.WriteString(lines[i-1])
			}
		}
		prev = s[1]
	}
	if prev < len(lines) && strings.TrimSpace(strings.Join(lines[prev:], "")) != "" {
		fmt.Fprintf(&b, "⋮ (lines %d-%d not shown)\n", prev+1, len(lines))
	}
	return b.String()
}
