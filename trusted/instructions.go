package trusted

import "strings"

// InstructionFiles are the repository's own instructions for agents and
// contributors, in the order they are shown.
var InstructionFiles = []string{"AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "CONTRIBUTING.md"}

// InstructionCap bounds each instruction file, in bytes.
const InstructionCap = 6 << 10

// Doc is one instruction file, capped.
type Doc struct {
	Path, Text string
	Cut        bool
}

// readInstructions reads the instruction files the tree has, each cut at
// perFile bytes (at a line end). An unreadable or empty one is left out.
func readInstructions(t *Tree, perFile int) []Doc {
	var docs []Doc
	for _, p := range InstructionFiles {
		b, err := t.ReadFile(p)
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
