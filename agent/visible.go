package agent

import (
	"regexp"
	"strings"
)

// htmlComment matches an HTML comment, or an unclosed one running to the end
// (GitHub hides that too).
var htmlComment = regexp.MustCompile(`(?s)<!--.*?(?:-->|$)`)

// Visible is text as a maintainer sees it rendered on GitHub: HTML comments,
// zero-width characters and bidirectional controls removed. What the model
// reads of an issue or a comment must be what a human reviewed; hidden text
// is where instructions aimed at the model would hide.
func Visible(s string) string {
	s = htmlComment.ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		if hidden(r) {
			return -1
		}
		return r
	}, s)
}

func hidden(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, // zero-width space, joiners, LRM, RLM
		r >= 0x202A && r <= 0x202E, // bidi embeddings and overrides
		r >= 0x2060 && r <= 0x2064, // word joiner, invisible operators
		r >= 0x2066 && r <= 0x2069, // bidi isolates
		r == 0xFEFF, r == 0x180E, r == 0x061C, r == 0x00AD:
		return true
	}
	return false
}
