package repoindex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenize splits text into code-aware lower-case terms: identifiers are
// split at camelCase, snake_case, kebab-case and dots, and the whole
// identifier is kept as well, so `parseHTTPHeader` matches "parse", "http",
// "header" and "parsehttpheader". Terms shorter than two letters and a small
// set of stop words are dropped: they carry no signal for localization.
func Tokenize(s string) []string {
	var out []string
	eachTerm(s, func(t string) { out = append(out, t) })
	return out
}

// eachTerm calls fn with Tokenize's terms of s, in its order, without
// collecting them: the index counts them straight into a map. An ASCII
// word — nearly every word of source code — is split and lower-cased in
// place, its parts substrings of s; tokenizing was a fifth of a cold build
// while each word went through runes and a slice of parts.
func eachTerm(s string, fn func(string)) {
	var parts []string // reused across words
	Words(s, func(w string) {
		if ascii(w) {
			parts = splitASCII(w, parts[:0])
		} else {
			parts = SplitIdent(w)
		}
		if len(parts) > 1 {
			if t := lower(w); keep(t) {
				fn(t)
			}
		}
		for _, p := range parts {
			if t := lower(p); keep(t) {
				fn(t)
			}
		}
	})
}

// identByte says which ASCII bytes belong to a word.
var identByte = func() (t [128]bool) {
	for c := 0; c < 128; c++ {
		t[c] = c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// Words calls fn with every identifier-like run of s (letters, digits, '_').
func Words(s string, fn func(string)) {
	start := -1
	for i := 0; i < len(s); {
		var ident bool
		size := 1
		if c := s[i]; c < utf8.RuneSelf {
			ident = identByte[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			ident = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		switch {
		case ident && start < 0:
			start = i
		case !ident && start >= 0:
			fn(s[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(s[start:])
	}
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lower is strings.ToLower without its copy when s has no upper case
// ASCII letter (ToLower checks the same, but only after a first pass that
// gives up at any non-ASCII byte).
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ToLower(s)
		}
	}
	return s
}

// SplitIdent splits one identifier at underscores and case changes:
// "HTTPServer_v2" -> ["HTTP", "Server", "v2"].
func SplitIdent(w string) []string {
	if ascii(w) {
		return splitASCII(w, nil)
	}
	var parts []string
	for _, seg := range strings.FieldsFunc(w, func(r rune) bool { return r == '_' }) {
		parts = append(parts, splitCase(seg)...)
	}
	return parts
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// splitASCII is SplitIdent of an ASCII word, appending to parts. (A lower
// case letter followed by a digit is no split: splitCase's digit rule
// needs a letter after a lower-case one that is also a digit, never true.)
func splitASCII(w string, parts []string) []string {
	start := 0
	for i := 0; i <= len(w); i++ {
		if i < len(w) && w[i] != '_' {
			if i > start && caseSplit(w, i) {
				parts = append(parts, w[start:i])
				start = i
			}
			continue
		}
		if i > start {
			parts = append(parts, w[start:i])
		}
		start = i + 1
	}
	return parts
}

// caseSplit reports whether a part starts at w[i]: lower to upper
// ("parseHTTP") or the last capital of an acronym before a lower-case
// letter ("HTTPServer").
func caseSplit(w string, i int) bool {
	prev, cur := w[i-1], w[i]
	if isLower(prev) && isUpper(cur) {
		return true
	}
	return isUpper(prev) && isUpper(cur) && i+1 < len(w) && isLower(w[i+1])
}

func splitCase(s string) []string {
	rs := []rune(s)
	var parts []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		lowerToUpper := unicode.IsLower(prev) && unicode.IsUpper(cur)
		acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(cur) && unicode.IsLower(next)
		digitEdge := unicode.IsDigit(prev) != unicode.IsDigit(cur) && unicode.IsLetter(cur) && unicode.IsLower(prev)
		if lowerToUpper || acronymEnd || digitEdge {
			parts = append(parts, string(rs[start:i]))
			start = i
		}
	}
	return append(parts, string(rs[start:]))
}

func keep(t string) bool {
	return len(t) >= 2 && len(t) <= 40 && !stopWord(t)
}

// stopWord reports the words too common to carry signal. A switch, not a
// map: it was looked up for nearly every term of a cold build, and the
// compiler's comparison by length and bytes costs no hashing.
func stopWord(t string) bool {
	switch t {
	case "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was", "one", "our", "out",
		"has", "him", "his", "how", "its", "may", "new", "now", "old", "see", "two", "way", "who", "did", "get", "got",
		"let", "put", "say", "she", "too", "use", "this", "that", "with", "have", "from", "they", "will", "would",
		"there", "their", "what", "about", "which", "when", "make", "like", "time", "just", "know", "take", "into",
		"your", "than", "them", "then", "some", "could", "these", "other", "only", "also", "very", "after", "most",
		"where", "should", "those", "being", "does", "such", "here", "much", "while", "over", "want", "been", "were",
		"each", "well", "even", "because", "doesn", "don", "isn", "it", "is", "in", "on", "of", "to", "be", "or", "as",
		"at", "by", "an", "if", "we", "my", "me", "no", "so", "do", "up", "https", "com", "www", "github":
		return true
	}
	return false
}
