package guards

import "path"

// gitMetadata are files that change how git itself reads the repository
// (filters, diff drivers, submodules): a change to them is never a fix.
var gitMetadata = map[string]bool{".gitattributes": true, ".gitmodules": true}

// modeRules judge what a line count cannot see: a nested repository
// (gitlink), a file made executable, and git's own metadata files.
func modeRules(c Change) []*Violation {
	if c.Status == Deleted {
		return nil
	}
	var vs []*Violation
	if c.NewMode == ModeGitlink {
		vs = append(vs, &Violation{Rule: "gitlink", Path: c.Path, Detail: "nested repositories and submodules are not accepted"})
	}
	if c.NewMode == ModeExecutable && c.OldMode != ModeExecutable {
		vs = append(vs, &Violation{Rule: "executable", Path: c.Path, Detail: "a file may not become executable"})
	}
	if gitMetadata[path.Base(c.Path)] {
		vs = append(vs, &Violation{Rule: "git_metadata", Path: c.Path, Detail: path.Base(c.Path) + " changes how git reads the repository"})
	}
	return vs
}
