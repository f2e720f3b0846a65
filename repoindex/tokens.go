package repoindex

import (
	"strings"
	"unicode"
)

// Tokenize splits text into code-aware lower-case terms: identifiers are
// split at camelCase, snake_case, kebab-case and dots, and the whole
// identifier is kept as well, so `parseHTTPHeader` matches "parse", "http",
// "header" and "parsehttpheader". Terms shorter than two letters and a small
// set of stop words are dropped: they carry no signal for localization.
func Tokenize(s string) []string {
	var out []string
	Words(s, func(w string) {
		parts := SplitIdent(w)
		if len(parts) > 1 {
			if t := strings.ToLower(w); keep(t) {
				out = append(out, t)
			}
		}
		for _, p := range parts {
			if t := strings.ToLower(p); keep(t) {
				out = append(out, t)
			}
		}
	})
	return out
}

// Words calls fn with every identifier-like run of s (letters, digits, '_').
func Words(s string, fn func(string)) {
	start := -1
	for i, r := range s {
		ident := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case ident && start < 0:
			start = i
		case !ident && start >= 0:
			fn(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// SplitIdent splits one identifier at underscores and case changes:
// "HTTPServer_v2" -> ["HTTP", "Server", "v2"].
func SplitIdent(w string) []string {
	var parts []string
	for _, seg := range strings.FieldsFunc(w, func(r rune) bool { return r == '_' }) {
		parts = append(parts, splitCase(seg)...)
	}
	return parts
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
	if len(t) < 2 || len(t) > 40 {
		return false
	}
	_, stop := stopWords[t]
	return !stop
}

var stopWords = map[string]struct{}{}

func init() {
	for _, w := range strings.Fields(`the and for are but not you all any can had her was one our out has him his how its may new now old see two way who did get got let put say she too use this that with have from they will would there their what about which when make like time just know take into your than them then some could these other only also very after most where should those being does such here much while over want been were each well even because doesn don isn it is in on of to be or as at by an if we my me no so do up https com www github`) {
		stopWords[w] = struct{}{}
	}
}
