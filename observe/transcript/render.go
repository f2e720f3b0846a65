package transcript

import (
	"fmt"
	"strings"
)

// MaxText is GitHub's limit on a check run's output.text, in characters.
const MaxText = 65535

// Render writes the transcript as Markdown within limit characters: every
// entry while they fit; else the first entries and the last, with the cut
// said between them. clean redacts (and neutralises) each piece of text
// that came from the run.
func (l *Log) Render(limit int, clean func(string) string) string {
	es, dropped := l.Entries()
	if clean == nil {
		clean = func(s string) string { return s }
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = renderEntry(e, clean)
	}
	cutNote := func(n int) string {
		return fmt.Sprintf("\n**[… %d entries cut here to fit GitHub's limit; the operator page and the log have them all …]**\n\n", n)
	}
	head := ""
	if dropped > 0 {
		head = fmt.Sprintf("_This run recorded more entries than a transcript keeps: %d from its middle are not shown._\n\n", dropped)
	}
	total := len(head)
	for _, p := range parts {
		total += len(p)
	}
	if total <= limit {
		return head + strings.Join(parts, "")
	}
	// Keep whole entries from both ends, alternating, while they fit.
	budget := limit - len(head) - len(cutNote(len(parts)))
	var front, back []string
	i, j := 0, len(parts)-1
	for i <= j {
		if p := parts[i]; len(p) <= budget {
			front, budget, i = append(front, p), budget-len(p), i+1
		} else {
			break
		}
		if i > j {
			break
		}
		if p := parts[j]; len(p) <= budget {
			back, budget, j = append([]string{p}, back...), budget-len(p), j-1
		} else {
			break
		}
	}
	return head + strings.Join(front, "") + cutNote(j-i+1) + strings.Join(back, "")
}

func renderEntry(e Entry, clean func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s` %s\n", e.At.UTC().Format("15:04:05"), e.Kind, clean(e.Title))
	if strings.TrimSpace(e.Body) != "" {
		lang := "text"
		if e.Kind == Edit {
			lang = "diff"
		}
		body := strings.ReplaceAll(clean(e.Body), "```", "`\u200b``") // the fence stays closed
		fmt.Fprintf(&b, "\n```%s\n%s\n```\n", lang, strings.TrimRight(body, "\n"))
	}
	b.WriteString("\n")
	return b.String()
}
