// Package repocontext decides what the planner sees of a repository for one
// issue: it ranks the indexed files against the text and renders,
// within a token budget, the repository's instruction files, a directory
// summary, the outlines of the top-ranked files and the contents of the best
// few. `bot context` prints the same view.
package repocontext

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// Query is what the text says, taken apart for ranking.
type Query struct {
	Text   string         // title, body and trusted comments, as one text
	Terms  map[string]int // code-aware terms with their weight (title words count twice)
	Idents []string       // identifiers as written: backticks, CamelCase, snake_case, pkg.Func
	Paths  []PathRef      // file paths mentioned, with the line when a trace gives one
}

// PathRef is a path in the text, as in a stack trace "dir/file.go:48".
type PathRef struct {
	Path string
	Line int
}

var (
	backticks = regexp.MustCompile("`([^`\n]{2,200})`")
	pathRe    = regexp.MustCompile(`([A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*\.(?:go|py|pyi|js|jsx|mjs|ts|tsx|rs|java|c|h|cc|cpp|rb|sh|toml|ya?ml|json|md|proto)\b)(?::(\d+))?`)
	identRe   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`)
)

// NewQuery takes an issue's title and body (and any trusted comments,
// appended to body) apart.
func NewQuery(title, body string) Query {
	text := title + "\n\n" + body
	q := Query{Text: text, Terms: map[string]int{}}
	for _, t := range repoindex.Tokenize(splitScripts(title)) {
		q.Terms[t] += 2
	}
	for _, t := range repoindex.Tokenize(splitScripts(body)) {
		q.Terms[t]++
	}
	seen := map[string]bool{}
	add := func(id string) {
		if len(id) >= 3 && !seen[id] {
			seen[id] = true
			q.Idents = append(q.Idents, id)
		}
	}
	for _, m := range backticks.FindAllStringSubmatch(text, -1) {
		for _, id := range identRe.FindAllString(m[1], -1) {
			for _, part := range strings.Split(id, ".") {
				add(part)
			}
		}
	}
	for _, id := range identRe.FindAllString(text, -1) {
		for _, part := range strings.Split(id, ".") {
			if looksLikeCode(part) || strings.Contains(id, ".") && len(part) > 3 && !isWord(part) {
				add(part)
			}
		}
	}
	for _, m := range pathRe.FindAllStringSubmatch(text, -1) {
		line := 0
		if m[2] != "" {
			line = atoi(m[2])
		}
		q.Paths = append(q.Paths, PathRef{Path: strings.TrimPrefix(m[1], "./"), Line: line})
	}
	return q
}

// Title is the title, the first part of Text.
func (q Query) Title() string {
	title, _, _ := strings.Cut(q.Text, "\n\n")
	return title
}

// splitScripts puts a space where CJK text meets other letters or digits:
// Chinese, Japanese and Korean put no space between words, so an issue's
// "failback负载模式下" would otherwise be one term that no code contains,
// and the identifier it starts with ("failback") would be lost.
func splitScripts(s string) string {
	var b strings.Builder
	prev := 0 // 0 neither, 1 CJK, 2 other letter or digit
	for _, r := range s {
		cur := 0
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			cur = 1
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = 2
		}
		if cur != 0 && prev != 0 && cur != prev {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = cur
	}
	return b.String()
}

// looksLikeCode says whether a word is written as an identifier (camelCase,
// PascalCase with an inner capital, snake_case) rather than as prose.
func looksLikeCode(w string) bool {
	if strings.Contains(strings.Trim(w, "_"), "_") {
		return true
	}
	upper, lowerThenUpper := 0, false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			upper++
			if i > 0 && w[i-1] >= 'a' && w[i-1] <= 'z' {
				lowerThenUpper = true
			}
		}
	}
	return lowerThenUpper
}

// isWord is a plain lower-case word, which a dotted sentence end ("it.The")
// or a domain name can put next to a dot.
func isWord(w string) bool {
	return strings.ToLower(w) == w && !strings.Contains(w, "_")
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
		if n > 1e7 {
			return 0
		}
	}
	return n
}
