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

// loggingManager is a Manager whose git logs each command line, and the
// bare repository (path and URL) it works on.
func loggingManager(t *testing.T) (m *Manager, log, bare, url string) {
	t.Helper()
	bare, url = gitfixture.NewRepo(t, map[string]string{"a.txt": "one\n"})
	git, log := countingGit(t)
	m, err := New(t.TempDir(), Options{GitTimeout: time.Minute, Git: git})
	if err != nil {
		t.Fatal(err)
	}
	return m, log, bare, url
}

// The remote's URL is set when it changes, not once per task: the mirror's
// config is Warden's alone, so the URL set last is still the one there.
func TestRemoteURLSetOnlyWhenItChanges(t *testing.T) {
	m, log, bare, url := loggingManager(t)
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

// Fetch ahead of Prepare: Prepare with Fetched does not fetch again, and
// sees what Fetch brought; with the mirror gone since, it fetches anyway.
func TestFetchAheadOfPrepare(t *testing.T) {
	m, log, bare, url := loggingManager(t)
	ctx := context.Background()
	req := PrepareRequest{Repo: "acme/calc", CloneURL: url, BaseBranch: "main", Branch: "warden/1-x", TaskKey: "f1"}
	m.Remove(ctx, prepare(t, m, url, "f0"))
	gitfixture.Commit(t, bare, "main", map[string]string{"a.txt": "two\n"})
	if err := m.Fetch(ctx, req); err != nil {
		t.Fatal(err)
	}
	req.Fetched = true
	w, err := m.Prepare(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := w.ReadFile("a.txt"); string(b) != "two\n" {
		t.Fatalf("Prepare after Fetch: %q", b)
	}
	if n := strings.Count(read(t, log), "fetch --prune"); n != 2 {
		t.Fatalf("%d fetches for two tasks, want 2", n)
	}
	m.Remove(ctx, w)
	os.RemoveAll(m.mirrorDir("acme/calc"))
	req.TaskKey = "f2"
	if _, err := m.Prepare(ctx, req); err != nil {
		t.Fatalf("Prepare with the mirror gone since Fetch: %v", err)
	}
}
