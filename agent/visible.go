package agent

import (
	"regexp"
	"strings"
	"unicode"
)

// htmlComment matches an HTML comment, or an unclosed one running to the end
// (GitHub hides that too).
var htmlComment = regexp.MustCompile(`(?s)<!--.*?(?:-->|$)`)

// Visible is text as a maintainer sees it rendered on GitHub: HTML comments,
// zero-width characters, bidirectional controls, Unicode tag characters,
// variation selectors outside emoji and other invisible format characters
// removed. What the model reads of an issue, a comment, a review or CI text
// must be what a human reviewed; hidden text is where instructions aimed at
// the model would hide.
func Visible(s string) string {
	s = htmlComment.ReplaceAllString(s, "")
	var b strings.Builder
	b.Grow(len(s))
	prev := rune(0)
	for _, r := range s {
		if hidden(r) || (variationSelector(r) && !emojiBase(prev)) {
			continue
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

func hidden(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, // zero-width space, joiners, LRM, RLM
		r >= 0x202A && r <= 0x202E,   // bidi embeddings and overrides
		r >= 0x2060 && r <= 0x2064,   // word joiner, invisible operators
		r >= 0x2066 && r <= 0x2069,   // bidi isolates
		r >= 0xE0000 && r <= 0xE007F, // tag characters: models read them, GitHub shows nothing
		r == 0xFEFF, r == 0x180E, r == 0x061C, r == 0x00AD,
		r == 0x034F,                                        // combining grapheme joiner
		r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0: // Hangul fillers, rendered blank
		return true
	}
	return unicode.Is(unicode.Cf, r) // every other invisible format character
}

// variationSelector covers VS1–VS16 and the supplementary VS17–VS256.
func variationSelector(r rune) bool {
	return r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF
}

// emojiBase is a character a variation selector may legitimately follow
// (text or emoji presentation): symbols and pictographs.
func emojiBase(r rune) bool {
	return r >= 0x2000 && unicode.In(r, unicode.So, unicode.Sm, unicode.Sc) || r >= 0x1F000 && r <= 0x1FAFF
}
