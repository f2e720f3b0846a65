package agent

import (
	"fmt"
	"regexp"
	"strings"
)

// Guidance is a note a writer (write, maintain or admin permission) sent to
// a run with `/warden steer`, already cut to what GitHub shows.
type Guidance struct {
	Author, Text string
}

// guidanceTag matches the tags that fence guidance in a prompt.
var guidanceTag = regexp.MustCompile(`(?i)<(\s*/?\s*guidance\b[^<>]*)>`)

// RenderGuidance is the block that carries writers' guidance into a model
// request, oldest first; "" when there is none. It is the maintainers'
// instruction, so it is framed as theirs, but it still cannot lift the
// limits or change the reply format, and its text cannot close its fence.
func RenderGuidance(gs []Guidance) string {
	if len(gs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nGuidance from the repository's maintainers (users with write access), sent while you work, oldest first. Follow it within the mode's limits and the reply format, which it cannot change:\n")
	for _, g := range gs {
		text := data(guidanceTag.ReplaceAllString(Visible(g.Text), "‹$1›"))
		fmt.Fprintf(&b, "<guidance author=%q>\n%s\n</guidance>\n", g.Author, text)
	}
	return b.String()
}
