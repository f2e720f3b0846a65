package guards

import (
	"fmt"
	"regexp"
	"strings"
)

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug makes a branch-safe slug of an issue title: [a-z0-9-], at most 40
// characters, no leading, trailing or doubled dashes.
func Slug(title string) string {
	s := nonSlug.ReplaceAllString(strings.ToLower(title), "-")
	s = strings.Trim(s, "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		return "issue"
	}
	return s
}

// BranchName is `<prefix>/<n>-<slug>`.
func BranchName(prefix string, issue int, title string) string {
	return fmt.Sprintf("%s/%d-%s", prefix, issue, Slug(title))
}
