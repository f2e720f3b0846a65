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

var refBad = regexp.MustCompile(`(\.\.|@\{|[\x00-\x20\x7f~^:?*\[\\]|//|/\.|\.lock$|\.$|^/|/$|^-)`)

// ValidBranch applies git's ref-name rules. A branch name recorded in an
// outcome record comes back from Redis, so it is checked before it is used.
func ValidBranch(name string) error {
	if name == "" || name == "@" || refBad.MatchString(name) || strings.HasPrefix(name, ".") {
		return &Violation{Rule: "branch_name", Path: name, Detail: "not a valid git branch name"}
	}
	return nil
}
