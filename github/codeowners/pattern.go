package codeowners

import (
	"regexp"
	"strings"
)

// compile turns one CODEOWNERS pattern into a regular expression over
// repository paths, with GitHub's documented rules:
//   - a pattern without a slash but a trailing one (`*.js`, `apps/`) matches
//     at any depth; with one (`/docs/`, `build/logs`) it is anchored at the root;
//   - a match on a directory covers everything under it, except `dir/*`,
//     which covers only the directory's own files;
//   - `*` stays within one path segment, `**` crosses them, `?` is one
//     character; `\` escapes the next one.
//
// Negation (`!`) and character ranges (`[ ]`) do not work in CODEOWNERS;
// such a pattern is reported, not guessed at.
func compile(p string) (*regexp.Regexp, bool) {
	if strings.HasPrefix(p, "!") || strings.ContainsAny(p, "[]") {
		return nil, false
	}
	anchored := strings.Contains(strings.TrimSuffix(p, "/"), "/")
	p = strings.TrimPrefix(p, "/")
	dirOnly := strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil, false
	}
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	body, filesOnly := p, false
	if strings.HasSuffix(body, "/*") {
		body, filesOnly = strings.TrimSuffix(body, "/*"), true
	}
	b.WriteString(glob(body))
	switch {
	case filesOnly:
		b.WriteString("/[^/]+$")
	case dirOnly:
		b.WriteString("/.+$")
	default:
		b.WriteString("(?:/.*)?$")
	}
	re, err := regexp.Compile(b.String())
	return re, err == nil
}

// glob translates the wildcards of one pattern (without its anchoring).
func glob(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		case strings.HasPrefix(p[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}
