package guards

import (
	"errors"
	"strings"
)

// Violation is one broken rule, with wording for the model and for the maintainer.
type Violation struct {
	Rule   string // blast_radius_files, blast_radius_lines, truncation, protected_path, unsafe_path, secret, binary, huge_file, symlink, gitlink, executable, git_metadata, branch_name
	Path   string
	Detail string
}

func (v *Violation) Error() string {
	if v.Path != "" {
		return v.Rule + ": " + v.Path + ": " + v.Detail
	}
	return v.Rule + ": " + v.Detail
}

// ForMaintainer is the sentence posted on the issue.
func (v *Violation) ForMaintainer() string {
	if v.Path != "" {
		return "`" + v.Path + "`: " + v.Detail
	}
	return v.Detail
}

// ForModel is imperative feedback the model can act on.
func (v *Violation) ForModel() string {
	switch v.Rule {
	case "protected_path":
		return "Do not modify " + v.Path + ": it is protected (" + v.Detail + "). Change only non-protected files."
	case "truncation":
		return "Do not delete most of " + v.Path + ": " + v.Detail + ". Edit only the lines that need to change."
	case "blast_radius_files", "blast_radius_lines":
		return "Your change is too large: " + v.Detail + ". Make the smallest change that fixes the issue."
	case "unsafe_path":
		return "The path " + v.Path + " is not allowed: " + v.Detail + ". Use relative paths inside the repository."
	case "secret":
		return "Your change adds what looks like a secret to " + v.Path + ". Never write credentials into files."
	}
	return "Your change was refused: " + v.Error() + "."
}

// Violations is several broken rules at once.
type Violations []*Violation

func (vs Violations) Error() string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Error()
	}
	return strings.Join(parts, "; ")
}

// AsViolations extracts the violations carried by err, if any.
func AsViolations(err error) []*Violation {
	var vs Violations
	if errors.As(err, &vs) {
		return vs
	}
	var v *Violation
	if errors.As(err, &v) {
		return []*Violation{v}
	}
	return nil
}

func asError(vs Violations) error {
	if len(vs) == 0 {
		return nil
	}
	return vs
}
