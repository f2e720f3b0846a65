package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Conflict is one file git could not merge: its hunks with both sides, as
// git wrote them, before the branch's side was checked out again.
type Conflict struct {
	Path  string
	Hunks string
}

// MergeBase merges the default branch's head into a follow-up's worktree
// (its PR conflicts with the base). A clean merge is committed as name.
// Files git cannot merge are returned with their hunks and left with the
// branch's side checked out, the merge still in progress: the next Commit
// concludes it. BaseSHA becomes the default branch's head either way.
func (w *Worktree) MergeBase(ctx context.Context, name, email string) ([]Conflict, error) {
	who := []string{"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + email, "GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email}
	w.headMoved = true
	_, err := w.git(ctx, "", who, "merge", "--no-edit", "--quiet", w.BaseTip)
	w.BaseSHA = w.BaseTip
	if err == nil {
		return nil, nil
	}
	out, derr := w.git(ctx, "", nil, "diff", "--name-only", "--diff-filter=U")
	files := strings.Fields(out)
	if derr != nil || len(files) == 0 {
		return nil, fmt.Errorf("merge %s into %s: %w", w.BaseTip, w.Branch, err)
	}
	w.merging = w.BaseTip // kept here, not read back from MERGE_HEAD, which commands can write
	var cs []Conflict
	for _, f := range files {
		b, err := readSmall(filepath.Join(w.Dir, filepath.FromSlash(f)), MaxRead)
		if err != nil {
			b = []byte("[warden: not shown: " + err.Error() + "]\n")
		}
		cs = append(cs, Conflict{Path: f, Hunks: hunks(string(b))})
		if _, err := w.git(ctx, "", nil, "checkout", "--ours", "--", f); err != nil {
			return nil, fmt.Errorf("keep the branch's side of %s: %w", f, err)
		}
	}
	return cs, nil
}

// hunks keeps the conflict blocks of a file with three lines around each.
func hunks(s string) string {
	lines := strings.Split(s, "\n")
	keep := make([]bool, len(lines))
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "<<<<<<< ") {
			in = true
			for j := max(i-3, 0); j < i; j++ {
				keep[j] = true
			}
		}
		if in {
			keep[i] = true
		}
		if strings.HasPrefix(l, ">>>>>>> ") {
			in = false
			for j := i + 1; j < min(i+4, len(lines)); j++ {
				keep[j] = true
			}
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if keep[i] {
			b.WriteString(l + "\n")
		} else if i > 0 && keep[i-1] {
			b.WriteString("…\n")
		}
	}
	return b.String()
}
