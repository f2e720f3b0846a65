package followup

import (
	"regexp"
	"strings"
)

var htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)

// Instruction returns what a PR comment asks of the App: the text after a
// line `/<prefix> fix <text>`, or the whole comment when it mentions
// `@<slug>`. Text inside code fences, quotes and HTML comments does not
// count: quoting an earlier request is not a new one.
func Instruction(prefix, slug, body string) (string, bool) {
	clean := htmlComment.ReplaceAllString(body, "")
	var kept []string
	inFence, mentioned := false, false
	for _, line := range strings.Split(clean, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
			continue
		}
		if inFence || strings.HasPrefix(t, ">") {
			continue
		}
		if rest, ok := strings.CutPrefix(t, "/"+prefix+" fix"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			if text := strings.TrimSpace(rest); text != "" {
				return text, true
			}
		}
		if slug != "" && mentions(t, slug) {
			mentioned = true
		}
		kept = append(kept, line)
	}
	if mentioned {
		return strings.TrimSpace(strings.Join(kept, "\n")), true
	}
	return "", false
}

// mentions reports an @slug that is a whole handle (not @slug-other).
func mentions(line, slug string) bool {
	at := "@" + strings.ToLower(slug)
	l := strings.ToLower(line)
	for i := strings.Index(l, at); i >= 0; {
		end := i + len(at)
		if end == len(l) || !isHandleChar(l[end]) {
			if i == 0 || !isHandleChar(l[i-1]) {
				return true
			}
		}
		next := strings.Index(l[end:], at)
		if next < 0 {
			break
		}
		i = end + next
	}
	return false
}

func isHandleChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '['
}

// Slug is the App's slug from its bot login (`<slug>[bot]`).
func Slug(botLogin string) string { return strings.TrimSuffix(botLogin, "[bot]") }
