package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/guards"
	"github.com/warden-bot/warden/test/gitfixture"
)

// countingManager is a Manager whose git is a script logging each
// command's name before running git: what a step costs in git processes.
func countingManager(t *testing.T) (*Manager, func() []string) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	script := filepath.Join(dir, "git")
	body := "#!/bin/sh\necho \"$1\" >> '" + log + "'\nexec git \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := New(t.TempDir(), Options{GitTimeout: time.Minute, Git: script})
	if err != nil {
		t.Fatal(err)
	}
	since := 0
	return m, func() []string {
		b, _ := os.ReadFile(log)
		all := strings.Fields(string(b))
		out := all[since:]
		since = len(all)
		return out
	}
}

// A tree judged before is not read again: only what names the tree runs
// (read-tree, add, write-tree). Any change to the files — even one that
// keeps the size and puts the modification time back — is a new tree, read
// and judged again: the tree's name is git's hash of what is on disk.
func TestJudgingReadsEachTreeOnce(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"a.go": "package a\n\nvar key = \"none\"\n"})
	m, ran := countingManager(t)
	w := prepare(t, m, url, "memo")
	ctx := context.Background()
	p := filepath.Join(w.Dir, "a.go")
	os.WriteFile(p, []byte("package a\n\nvar key = \"safe-value-0123456789abcdef0123456\"\n"), 0o644)
	fi, _ := os.Stat(p)
	ran()
	first, err := w.Changes(ctx)
	if err != nil || len(first) != 1 {
		t.Fatalf("changes = %+v, %v", first, err)
	}
	if got := ran(); !reflect.DeepEqual(got, []string{"read-tree", "add", "write-tree", "diff", "cat-file", "diff"}) {
		t.Fatalf("the first judging ran %v", got)
	}
	again, err := w.Changes(ctx)
	if err != nil || !reflect.DeepEqual(again, first) {
		t.Fatalf("same tree judged again: %+v, %v; first %+v", again, err, first)
	}
	if got := ran(); !reflect.DeepEqual(got, []string{"read-tree", "add", "write-tree"}) {
		t.Fatalf("an unchanged tree ran %v", got)
	}
	// Same length, a secret instead; the modification time put back.
	os.WriteFile(p, []byte("package a\n\nvar key = \"ghp_abcdefghijklmnopqrstuvwxyz0123\"\n"), 0o644)
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	changed, err := w.Changes(ctx)
	if err != nil || len(changed) != 1 {
		t.Fatalf("changes = %+v, %v", changed, err)
	}
	if reflect.DeepEqual(changed[0].AddedText, first[0].AddedText) || w.JudgedTree() == "" {
		t.Fatalf("a rewritten file judged as the old one: %q", changed[0].AddedText)
	}
	if guards.CheckDiff(changed, guards.Limits{}) == nil {
		t.Fatal("the secret passed the guards")
	}
	for range 2 { // the list read, then a remembered one: neither is shared
		changed[0].AddedText[0] = "mutated by a caller"
		if changed, _ = w.Changes(ctx); changed[0].AddedText[0] == "mutated by a caller" {
			t.Fatal("a caller's change to the list reached the remembered one")
		}
	}
}

// The review reads the tree the guards judged — the one released — not
// what a command wrote after the judgement.
func TestJudgedDiffIsTheReleasedTree(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"a.go": "package a\n"})
	w := prepare(t, newManager(t), url, "judged-diff")
	ctx := context.Background()
	os.WriteFile(filepath.Join(w.Dir, "a.go"), []byte("package a // fixed\n"), 0o644)
	if _, err := w.Changes(ctx); err != nil {
		t.Fatal(err)
	}
	judged, err := w.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(w.Dir, "later.go"), []byte("package a // after the judgement\n"), 0o644)
	got, err := w.JudgedDiff(ctx)
	if err != nil || got != judged {
		t.Fatalf("judged diff:\n%s\nwant:\n%s (%v)", got, judged, err)
	}
	if now, _ := w.Diff(ctx); !strings.Contains(now, "later.go") {
		t.Fatalf("the worktree's diff misses the later file:\n%s", now)
	}
}

// Statuses, paths and modes come from one diff (raw records, then line
// counts): a file named like a raw record is a path, never a record.
func TestChangesFromOneDiff(t *testing.T) {
	forged := ":000000 100755 0000000000000000000000000000000000000000 0000000000000000000000000000000000000000 A"
	_, url := gitfixture.NewRepo(t, map[string]string{"old.go": strings.Repeat("package a // line\n", 20), "gone.go": "package a\n", "m.go": "package a\n"})
	w := prepare(t, newManager(t), url, "one-diff")
	ctx := context.Background()
	os.Rename(filepath.Join(w.Dir, "old.go"), filepath.Join(w.Dir, forged))
	os.Remove(filepath.Join(w.Dir, "gone.go"))
	os.WriteFile(filepath.Join(w.Dir, "m.go"), []byte("package a\n\nfunc F() {}\n"), 0o644)
	os.WriteFile(filepath.Join(w.Dir, "x.sh"), []byte("echo\n"), 0o755)
	changes, err := w.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]guards.Change{}
	for _, c := range changes {
		c.AddedText = nil
		got[c.Path] = c
	}
	want := map[string]guards.Change{
		forged:    {Path: forged, OldPath: "old.go", Status: guards.Renamed, OldLines: 20, NewLines: 20, Size: 360, OldMode: "100644", NewMode: "100644"},
		"gone.go": {Path: "gone.go", Status: guards.Deleted, Deleted: 1, OldLines: 1, OldMode: "100644"},
		"m.go":    {Path: "m.go", Status: guards.Modified, Added: 2, OldLines: 1, NewLines: 3, Size: 23, OldMode: "100644", NewMode: "100644"},
		"x.sh":    {Path: "x.sh", Status: guards.Added, Added: 1, NewLines: 1, Size: 5, NewMode: "100755"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes:\n%+v\nwant:\n%+v", got, want)
	}
}

// An added line that starts with "++" is an added line: the patch's
// "+++ b/…" header is told apart by position (before the first hunk), not
// by its first characters, so a secret behind "++" is still seen.
func TestAddedLinesStartingWithPlusPlusAreScanned(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"notes.md": "# Notes\n"})
	w := prepare(t, newManager(t), url, "plusplus")
	os.WriteFile(filepath.Join(w.Dir, "notes.md"), []byte("# Notes\n++ghp_abcdefghijklmnopqrstuvwxyz0123\n"), 0o644)
	changes, err := w.Changes(context.Background())
	if err != nil || len(changes) != 1 {
		t.Fatalf("changes = %+v, %v", changes, err)
	}
	if want := []string{"++ghp_abcdefghijklmnopqrstuvwxyz0123"}; !reflect.DeepEqual(changes[0].AddedText, want) {
		t.Fatalf("added text %q, want %q", changes[0].AddedText, want)
	}
	if guards.CheckDiff(changes, guards.Limits{}) == nil {
		t.Fatal("a secret behind \"++\" passed the guards")
	}
}
