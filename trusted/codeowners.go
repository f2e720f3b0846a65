package trusted

import (
	"fmt"

	"github.com/warden-bot/warden/github/codeowners"
)

// CodeOwnersFiles are where GitHub looks for CODEOWNERS, in its order: the
// first that exists is the one GitHub uses, and so the one Warden reads.
var CodeOwnersFiles = []string{".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"}

// readCodeOwners reads the base's CODEOWNERS: who owns which files decides
// whom Warden asks to review, so it comes from the default branch like the
// other inputs (a PR cannot name its own reviewers). A symbolic link is
// absent, as everywhere in this package.
func readCodeOwners(t *Tree) (*codeowners.File, string, error) {
	for _, name := range CodeOwnersFiles {
		b, err := t.ReadFile(name)
		switch {
		case isAbsent(err):
			continue
		case err != nil:
			return nil, "", fmt.Errorf("read %s: %w", name, err)
		}
		f, _ := codeowners.Parse(b) // an unsupported line matches nothing, as on GitHub
		return f, name, nil
	}
	return nil, "", nil
}
