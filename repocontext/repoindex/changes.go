package repoindex

import (
	"context"
	"fmt"
	"strings"
)

// changes are the paths whose content may differ from an indexed
// ancestor's, and whether the checkout's tracked files match HEAD.
type changes struct {
	paths map[string]bool
	clean bool
}

// changedSince lists the paths that differ between commit and HEAD
// (added, modified, deleted, type-changed; renames as a deletion and an
// addition) and those where the index or the worktree differs from HEAD.
// The commits are compared tree to tree and the worktree is scanned once,
// by the status that also says whether it is clean: a diff of commit
// against the worktree, a listing of untracked files and a status had
// scanned it three times. A path changed and changed back is listed: it is
// indexed again, to the same entry. Untracked files are not asked for: the
// index holds tracked files only; nor submodules, which it keeps by path
// alone (and whose status git would ask of a git in each submodule's
// directory, which the worktree's commands could have written).
func changedSince(ctx context.Context, git Git, dir, commit string) (changes, error) {
	if commit == "" {
		return changes{}, fmt.Errorf("updating the index of %s: the base index names no commit", dir)
	}
	diff, err := git(ctx, "diff", "--name-only", "-z", "--no-renames", commit, "HEAD", "--")
	if err != nil {
		return changes{}, fmt.Errorf("changes of %s since %s: %w", dir, commit, err)
	}
	st, err := git(ctx, "status", "--porcelain", "-z", "--untracked-files=no", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return changes{}, fmt.Errorf("uncommitted changes of %s: %w", dir, err)
	}
	ch := changes{paths: map[string]bool{}, clean: st == ""}
	for _, p := range strings.Split(diff, "\x00") {
		if p != "" {
			ch.paths[p] = true
		}
	}
	for _, e := range strings.Split(st, "\x00") {
		if len(e) > 3 { // "XY path"
			ch.paths[e[3:]] = true
		}
	}
	return ch, nil
}
