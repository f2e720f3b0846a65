package workspace

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/warden-bot/warden/guards"
)

// judgement is what Changes read from git for one tree against one base.
// The tree is named by the hash git computed from the worktree's content
// (write-tree), never by anything a file in the worktree says: the same
// hash is the same paths, modes and bytes, so the same change list and the
// same verdict of every guard. A stage that judges a tree an earlier stage
// already judged (the Security stage after the Test stage left the tree
// as it was) reuses the list instead of reading every diff again.
type judgement struct {
	base, tree string
	changes    []guards.Change
}

// remembered is the change list judged for tree against the current base,
// or false. Files too big to hash are not in any tree: with one present,
// nothing is reused.
func (w *Worktree) remembered(tree string) ([]guards.Change, bool) {
	j := w.memo
	if j == nil || j.base != w.BaseSHA || j.tree != tree || len(w.huge) > 0 {
		return nil, false
	}
	return cloneChanges(j.changes), true
}

// remember keeps the change list of tree (before the huge files are added
// to it) for the next Changes.
func (w *Worktree) remember(tree string, changes []guards.Change) {
	w.memo = nil
	if len(w.huge) == 0 {
		w.memo = &judgement{base: w.BaseSHA, tree: tree, changes: cloneChanges(changes)}
	}
}

func cloneChanges(cs []guards.Change) []guards.Change {
	out := slices.Clone(cs)
	for i := range out {
		out[i].AddedText = slices.Clone(out[i].AddedText)
	}
	return out
}

// readChanges lists the index's changes against the base with one git
// process (`diff --raw --numstat -z`: statuses, paths and modes, then line
// counts) and fills in what the guards judge per file.
func (w *Worktree) readChanges(ctx context.Context, env []string) ([]guards.Change, error) {
	out, err := w.git(ctx, "", env, "diff", "--no-ext-diff", "--no-textconv", "--cached", "-M", "--raw", "--numstat", "--no-abbrev", "-z", w.BaseSHA)
	if err != nil {
		return nil, err
	}
	changes, rest := parseRaw(strings.Split(strings.TrimSuffix(out, "\x00"), "\x00"))
	counts := parseNumstat(strings.Join(rest, "\x00"))
	for i := range changes {
		c := &changes[i]
		w.fill(ctx, env, c, counts[c.Path])
		c.Symlink = c.Symlink || c.NewMode == guards.ModeSymlink
	}
	return changes, nil
}

// parseRaw reads the `--raw -z` records that open the output —
// ":oldmode newmode oldsha newsha status\0path\0", two paths for renames
// and copies — and returns the rest. Paths are taken by position, never
// read as records: a file named like a record stays a path.
func parseRaw(f []string) (changes []guards.Change, rest []string) {
	i := 0
	for i < len(f) && strings.HasPrefix(f[i], ":") {
		parts := strings.Fields(f[i][1:])
		if len(parts) < 5 || parts[4] == "" || i+1 >= len(f) {
			break
		}
		c := guards.Change{OldMode: zeroMode(parts[0]), NewMode: zeroMode(parts[1])}
		switch code := parts[4][0]; code {
		case 'R', 'C':
			if i+2 >= len(f) {
				return changes, nil
			}
			c.Status, c.OldPath, c.Path = guards.Renamed, f[i+1], f[i+2]
			i += 3
		default:
			c.Path = f[i+1]
			c.Status = map[byte]guards.Status{'A': guards.Added, 'D': guards.Deleted}[code]
			if c.Status == "" {
				c.Status = guards.Modified
			}
			i += 2
		}
		changes = append(changes, c)
	}
	return changes, f[i:]
}

// parseNumstat reads `--numstat -z`: "add\tdel\tpath\0" or, for renames,
// "add\tdel\t\0old\0new\0".
func parseNumstat(s string) map[string]numbers {
	out := map[string]numbers{}
	f := strings.Split(s, "\x00")
	for i := 0; i < len(f); i++ {
		parts := strings.SplitN(f[i], "\t", 3)
		if len(parts) != 3 {
			continue
		}
		path := parts[2]
		if path == "" && i+2 < len(f) {
			path = f[i+2]
			i += 2
		}
		a, errA := strconv.Atoi(parts[0])
		d, _ := strconv.Atoi(parts[1])
		out[path] = numbers{added: a, deleted: d, binary: errA != nil}
	}
	return out
}

func zeroMode(m string) string {
	if m == "000000" {
		return ""
	}
	return m
}
