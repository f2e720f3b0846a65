package guards

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Limits are a mode's guard settings.
type Limits struct {
	MaxFiles         int
	MaxLines         int
	Protected        []string // doublestar globs
	AllowTestChanges bool
	MaxFileBytes     int64 // default 1 MiB
}

// TruncationMinLines is the size from which a file may not lose more than half its lines.
const TruncationMinLines = 40

// CheckPlan judges the files a plan names, before anything is attempted.
func CheckPlan(files []string, l Limits) error {
	var vs Violations
	seen := map[string]bool{}
	for _, f := range files {
		clean, err := CheckPath(f)
		if err != nil {
			vs = append(vs, err.(*Violation))
			continue
		}
		seen[clean] = true
		if g := protectedBy(clean, l); g != "" {
			vs = append(vs, &Violation{Rule: "protected_path", Path: clean, Detail: "matches " + g})
		}
	}
	if l.MaxFiles > 0 && len(seen) > l.MaxFiles {
		vs = append(vs, &Violation{Rule: "blast_radius_files", Detail: fmt.Sprintf("the plan touches %d files; the limit is %d", len(seen), l.MaxFiles)})
	}
	return asError(vs)
}

// CheckDiff judges the real worktree diff.
func CheckDiff(changes []Change, l Limits) error {
	var vs Violations
	lines := 0
	maxBytes := l.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	for _, c := range changes {
		lines += c.Added + c.Deleted
		for _, p := range []string{c.Path, c.OldPath} {
			if p == "" {
				continue
			}
			if _, err := CheckPath(p); err != nil {
				vs = append(vs, err.(*Violation))
			} else if g := protectedBy(p, l); g != "" {
				vs = append(vs, &Violation{Rule: "protected_path", Path: p, Detail: "matches " + g})
			}
		}
		vs = append(vs, fileRules(c, maxBytes)...)
	}
	if l.MaxFiles > 0 && len(changes) > l.MaxFiles {
		vs = append(vs, &Violation{Rule: "blast_radius_files", Detail: fmt.Sprintf("the change touches %d files; the limit is %d", len(changes), l.MaxFiles)})
	}
	if l.MaxLines > 0 && lines > l.MaxLines {
		vs = append(vs, &Violation{Rule: "blast_radius_lines", Detail: fmt.Sprintf("the change adds and removes %d lines; the limit is %d", lines, l.MaxLines)})
	}
	return asError(vs)
}

func fileRules(c Change, maxBytes int64) []*Violation {
	var vs []*Violation
	if c.OldLines >= TruncationMinLines && c.NewLines*2 < c.OldLines {
		vs = append(vs, &Violation{Rule: "truncation", Path: c.Path, Detail: fmt.Sprintf("the file would shrink from %d to %d lines", c.OldLines, c.NewLines)})
	}
	if c.Binary && c.Status != Deleted {
		vs = append(vs, &Violation{Rule: "binary", Path: c.Path, Detail: "binary files are not accepted"})
	}
	if c.Size > maxBytes {
		vs = append(vs, &Violation{Rule: "huge_file", Path: c.Path, Detail: fmt.Sprintf("%d bytes is over the %d-byte limit", c.Size, maxBytes)})
	}
	vs = append(vs, modeRules(c)...)
	if c.Symlink && c.Status != Deleted {
		vs = append(vs, &Violation{Rule: "symlink", Path: c.Path, Detail: "symbolic links are not accepted"})
	}
	if fs := ScanSecrets(c.AddedText); len(fs) > 0 {
		vs = append(vs, &Violation{Rule: "secret", Path: c.Path, Detail: fmt.Sprintf("added line %d looks like a %s", fs[0].Line, fs[0].Kind)})
	}
	return vs
}

// protectedBy returns the glob protecting path, or "".
func protectedBy(path string, l Limits) string {
	for _, g := range l.Protected {
		if ok, _ := doublestar.Match(g, path); ok {
			return g
		}
		// A directory glob like test/** also covers the directory's name itself.
		if strings.HasSuffix(g, "/**") && path == strings.TrimSuffix(g, "/**") {
			return g
		}
	}
	return ""
}
