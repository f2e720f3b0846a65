// Package codeowners reads a CODEOWNERS file as GitHub does: one pattern
// and its owners a line, gitignore-like patterns, the last matching line
// wins (a line without owners takes ownership away). It is pure: package
// trusted reads the file from the default branch's head and hands it here.
package codeowners

import (
	"regexp"
	"strings"
)

// File is a parsed CODEOWNERS.
type File struct{ rules []rule }

type rule struct {
	pattern string
	re      *regexp.Regexp
	owners  []string
}

// Parse reads text line by line. A line GitHub would not understand (a
// pattern with `!` or `[`, which CODEOWNERS does not support) is skipped
// and returned in bad, so a caller can say so; it never fails whole.
func Parse(text []byte) (f *File, bad []string) {
	f = &File{}
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(stripComment(line))
		if line == "" {
			continue
		}
		fields := strings.Fields(line)
		re, ok := compile(fields[0])
		if !ok {
			bad = append(bad, fields[0])
			continue
		}
		f.rules = append(f.rules, rule{pattern: fields[0], re: re, owners: fields[1:]})
	}
	return f, bad
}

// stripComment drops a `#` comment; `\#` is a literal hash in a pattern.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] != '\\') {
			return line[:i]
		}
	}
	return line
}

// Owners of path (slash-separated, relative to the repository's root):
// the owners of the last line whose pattern matches, nil when none does
// or that line names none.
func (f *File) Owners(path string) []string {
	if f == nil {
		return nil
	}
	path = strings.TrimPrefix(path, "/")
	for i := len(f.rules) - 1; i >= 0; i-- {
		if f.rules[i].re.MatchString(path) {
			return f.rules[i].owners
		}
	}
	return nil
}

// Reviewers splits owners into the users and the teams (`@org/team`, the
// team's slug) a review can be requested from. E-mail owners are left out:
// GitHub's review request takes logins and team slugs only.
func Reviewers(owners []string) (users, teams []string) {
	for _, o := range owners {
		name, ok := strings.CutPrefix(o, "@")
		if !ok || name == "" {
			continue
		}
		if _, team, isTeam := strings.Cut(name, "/"); isTeam {
			if team != "" {
				teams = append(teams, team)
			}
			continue
		}
		users = append(users, name)
	}
	return users, teams
}
