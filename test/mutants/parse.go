package main

import (
	"fmt"
	"strings"
)

// mutant is one planted bug: in File, Find becomes Replace, and Test (go
// test's arguments) must then fail.
type mutant struct {
	Name, Why     string
	File, Test    string
	Find, Replace string
	line          int
}

// parse reads a mutant file (see the package comment for its form).
func parse(text string) ([]mutant, error) {
	var out []mutant
	var cur *mutant
	section := "" // "", "find" or "replace"
	var find, repl []string
	flush := func() error {
		if cur == nil {
			return nil
		}
		cur.Find, cur.Replace = joinLines(find), joinLines(repl)
		if err := cur.check(); err != nil {
			return fmt.Errorf("line %d (%s): %w", cur.line, cur.Name, err)
		}
		out = append(out, *cur)
		cur, find, repl, section = nil, nil, nil, ""
		return nil
	}
	for i, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "=== "):
			if err := flush(); err != nil {
				return nil, err
			}
			name, why, _ := strings.Cut(strings.TrimPrefix(l, "=== "), ":")
			cur = &mutant{Name: strings.TrimSpace(name), Why: strings.TrimSpace(why), line: i + 1}
		case cur == nil:
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
				return nil, fmt.Errorf("line %d: text outside an entry: %q", i+1, l)
			}
		case l == "--- find":
			section = "find"
		case l == "--- replace":
			section = "replace"
		case section == "find":
			find = append(find, l)
		case section == "replace":
			repl = append(repl, l)
		case strings.HasPrefix(l, "file:"):
			cur.File = strings.TrimSpace(strings.TrimPrefix(l, "file:"))
		case strings.HasPrefix(l, "test:"):
			cur.Test = strings.TrimSpace(strings.TrimPrefix(l, "test:"))
		case strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#"):
		default:
			return nil, fmt.Errorf("line %d: unknown line in %s: %q", i+1, cur.Name, l)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no mutants")
	}
	return out, nil
}

// joinLines drops the blank lines and "# " comments that separate entries
// from the end of a section (a comment before the next entry names its
// group): find and replace texts are whole lines of Go, which never start
// with "# ".
func joinLines(ls []string) string {
	for len(ls) > 0 && (strings.TrimSpace(ls[len(ls)-1]) == "" || strings.HasPrefix(ls[len(ls)-1], "# ")) {
		ls = ls[:len(ls)-1]
	}
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func (m *mutant) check() error {
	switch {
	case m.Name == "" || strings.ContainsAny(m.Name, " \t"):
		return fmt.Errorf("a mutant needs a one-word name")
	case m.File == "":
		return fmt.Errorf("no file line")
	case m.Test == "":
		return fmt.Errorf("no test line")
	case m.Find == "":
		return fmt.Errorf("no --- find text")
	case m.Find == m.Replace:
		return fmt.Errorf("replace equals find: nothing is planted")
	}
	// A test line go test cannot be given (an unclosed quote) would fail
	// before any test ran, and read as a catch.
	if _, err := splitWords(m.Test); err != nil {
		return fmt.Errorf("test line: %w", err)
	}
	return nil
}
