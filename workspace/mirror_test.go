package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/gitfixture"
)

// countingGit is a git that logs each command's first argument to log.
func countingGit(t *testing.T) (git, log string) {
	dir := t.TempDir()
	log = filepath.Join(dir, "log")
	git = filepath.Join(dir, "git")
	script := "#!/bin/sh\necho \"$1 $2\" >>" + log + "\nexec git \"$@\"\n"
	if err := os.WriteFile(git, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return git, log
}

// The remote's URL is set when it changes, not once per task: the mirror's
// config is Warden's alone, so the URL set last is still the one there.
func TestRemoteURLSetOnlyWhenItChanges(t *testing.T) {
	bare, url := gitfixture.NewRepo(t, map[string]string{"a.txt": "one\n"})
	git, log := countingGit(t)
	m, err := New(t.TempDir(), Options{GitTimeout: time.Minute, Git: git})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, key := range []string{"t1", "t2"} {
		w := prepare(t, m, url, key)
		m.Remove(ctx, w)
	}
	if n := strings.Count(read(t, log), "remote set-url"); n != 0 {
		t.Fatalf("set-url ran %d times for an unchanged URL", n)
	}
	// The same repository under another URL (a moved GitHub URL): set, and
	// the fetch comes from there.
	moved := filepath.Join(t.TempDir(), "moved.git")
	if err := os.Rename(bare, moved); err != nil {
		t.Fatal(err)
	}
	gitfixture.Commit(t, moved, "main", map[string]string{"a.txt": "two\n"})
	w := prepare(t, m, "file://"+moved, "t3")
	if b, _ := w.ReadFile("a.txt"); string(b) != "two\n" {
		t.Fatalf("fetched from the old URL: %q", b)
	}
	if n := strings.Count(read(t, log), "remote set-url"); n != 1 {
		t.Fatalf("set-url ran %d times after the URL changed, want 1", n)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
