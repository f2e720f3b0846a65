package repocontext

import (
	"os"
	"path/filepath"
	"strings"
)

// InstructionFiles are the repository's own instructions for agents and
// contributors, read from the default branch (the worktree's base), in this
// order.
var InstructionFiles = []string{"AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "CONTRIBUTING.md"}

// Doc is one instruction file, capped.
type Doc struct {
	Path, Text string
	Cut        bool
}

// ReadInstructions reads the instruction files present under dir, each cut
// at perFile bytes (at a line end). read is the worktree's confined reader
// when there is one (symlinks out of the tree are refused there); nil reads
// dir directly.
func ReadInstructions(dir string, read func(string) ([]byte, error), perFile int) []Doc {
	if read == nil {
		read = func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))) }
	}
	var docs []Doc
	for _, p := range InstructionFiles {
		b, err := read(p)
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		text, cut := strings.ToValidUTF8(string(b), "\uFFFD"), false
		if len(text) > perFile {
			text, cut = text[:perFile], true
			if i := strings.LastIndexByte(text, '\n'); i > perFile/2 {
				text = text[:i+1]
			}
		}
		docs = append(docs, Doc{Path: p, Text: text, Cut: cut})
	}
	return docs
}
