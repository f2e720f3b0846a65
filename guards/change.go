// Package guards holds Warden's deterministic checks over a plan or a diff.
// They are pure functions: whatever the model says, they decide.
package guards

// Change is one file touched by a worktree diff, as the workspace reports it
// (tracked, untracked and deleted files alike).
type Change struct {
	Path    string // slash-separated, relative to the worktree root
	OldPath string // set for renames
	Status  Status
	Added   int // lines added
	Deleted int // lines deleted
	// OldLines and NewLines are the file's line counts before and after,
	// which the truncation guard needs.
	OldLines int
	NewLines int
	Binary   bool
	Size     int64 // bytes after the change (0 when deleted)
	// AddedText holds the added lines (without the leading '+'), for the secrets guard.
	AddedText []string
	Symlink   bool
	// OldMode and NewMode are git's modes ("100644", "100755", "120000",
	// "160000"); empty for the side that does not exist.
	OldMode, NewMode string
}

// Git modes the guards judge.
const (
	ModeExecutable = "100755"
	ModeSymlink    = "120000"
	ModeGitlink    = "160000"
)

// Status is how a file changed.
type Status string

// The change statuses.
const (
	Added    Status = "added"
	Modified Status = "modified"
	Deleted  Status = "deleted"
	Renamed  Status = "renamed"
)
