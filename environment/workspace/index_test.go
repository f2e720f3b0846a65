package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/warden-bot/warden/test/gitfixture"
)

func changedPaths(t *testing.T, w *Worktree) []string {
	t.Helper()
	changes, err := w.Changes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range changes {
		out = append(out, string(c.Status)+" "+c.Path)
	}
	slices.Sort(out)
	return out
}

// The private index is kept between calls, yet each call sees exactly the
// worktree against its base: a change undone, a file added then deleted, or
// a new file that .gitignore now covers is no longer a change.
func TestPrivateIndexFollowsTheWorktreeExactly(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"a.go": "a\n", "b.go": "b\n", ".gitignore": "*.log\n"})
	w := prepare(t, newManager(t), url, "idx")
	write := func(p, s string) { os.WriteFile(filepath.Join(w.Dir, p), []byte(s), 0o644) }
	write("a.go", "A\n")
	write("new.go", "n\n")
	write("out.txt", "o\n")
	if got, want := changedPaths(t, w), []string{"added new.go", "added out.txt", "modified a.go"}; !slices.Equal(got, want) {
		t.Fatalf("first call: %q, want %q", got, want)
	}
	admin, ok := w.gitDir, w.gitDir != ""
	if _, err := os.Stat(filepath.Join(admin, privateIndex)); !ok || err != nil {
		t.Fatalf("no private index in the worktree's admin dir %q: %v", admin, err)
	}
	write("a.go", "a\n")
	os.Remove(filepath.Join(w.Dir, "new.go"))
	write(".gitignore", "*.log\nout.txt\n")
	if got, want := changedPaths(t, w), []string{"modified .gitignore"}; !slices.Equal(got, want) {
		t.Fatalf("second call: %q, want %q", got, want)
	}
}

// A lock file left by a git command that was killed (a canceled stage) does
// not wedge the worktree's diffs.
func TestPrivateIndexSurvivesAKilledCommand(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"a.go": "a\n"})
	w := prepare(t, newManager(t), url, "lock")
	os.WriteFile(filepath.Join(w.Dir, "a.go"), []byte("A\n"), 0o644)
	changedPaths(t, w)
	admin := w.gitDir
	os.WriteFile(filepath.Join(admin, privateIndex+".lock"), nil, 0o600)
	if got := changedPaths(t, w); !slices.Equal(got, []string{"modified a.go"}) {
		t.Fatalf("after a stale lock: %q", got)
	}
}

// Removing the worktree removes its private index with it.
func TestPrivateIndexGoesWithTheWorktree(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"a.go": "a\n"})
	m := newManager(t)
	w := prepare(t, m, url, "gone")
	changedPaths(t, w)
	admin := w.gitDir
	if err := m.Remove(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(admin, privateIndex)); !os.IsNotExist(err) {
		t.Fatalf("private index left after Remove: %v", err)
	}
}
