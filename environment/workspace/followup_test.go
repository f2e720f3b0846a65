package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/test/gitfixture"
)

// headOf is the commit a branch of the bare repository points at.
func headOf(t *testing.T, bare, branch string) string {
	out, err := exec.Command("git", "--git-dir="+bare, "rev-parse", branch).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// branchFromMain creates branch at main's head, as Warden's PR branches are.
func branchFromMain(t *testing.T, bare, branch string) {
	if out, err := exec.Command("git", "--git-dir="+bare, "branch", branch, "main").CombinedOutput(); err != nil {
		t.Fatalf("branch: %v %s", err, out)
	}
}

// A follow-up worktree starts at the PR's head, judges changes against the
// merge base (the PR's whole diff), resets to the head, and its push never
// overwrites a commit someone else pushed meanwhile.
func TestFollowupStartsAtHeadAndPushesOnlyOntoIt(t *testing.T) {
	bare, url := gitfixture.NewRepo(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	branchFromMain(t, bare, "warden/1-x")
	gitfixture.Commit(t, bare, "warden/1-x", map[string]string{"a.txt": "two\n"})
	head := headOf(t, bare, "warden/1-x")
	m, ctx := newManager(t), context.Background()
	w, err := m.Prepare(ctx, PrepareRequest{Repo: "acme/calc", CloneURL: url, BaseBranch: "main", Branch: "warden/1-x", TaskKey: "f1", Start: head})
	if err != nil {
		t.Fatal(err)
	}
	if w.Head != head || w.BaseSHA != headOf(t, bare, "main") {
		t.Fatalf("head %s base %s", w.Head, w.BaseSHA)
	}
	if same, err := w.Unchanged(ctx); err != nil || !same {
		t.Fatalf("fresh follow-up worktree changed: %v %v", same, err)
	}
	os.WriteFile(filepath.Join(w.Dir, "b.txt"), []byte("b2\n"), 0o644)
	if ch, _ := w.Changes(ctx); len(ch) != 2 {
		t.Fatalf("changes against the base = %+v, want the PR's a.txt and the new b.txt", ch)
	}
	if err := w.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if b, _ := w.ReadFile("a.txt"); string(b) != "two\n" {
		t.Fatalf("reset went past the PR's head: %q", b)
	}
	os.WriteFile(filepath.Join(w.Dir, "b.txt"), []byte("b3\n"), 0o644)
	if _, err := w.Commit(ctx, "follow-up", "Bot", "bot@x"); err != nil {
		t.Fatal(err)
	}
	gitfixture.Commit(t, bare, "warden/1-x", map[string]string{"c.txt": "a human's push\n"})
	if err := w.PushOnto(ctx, url, "", head); err == nil {
		t.Fatal("the push overwrote a commit pushed meanwhile")
	}
	if got := gitfixture.ReadFile(t, bare, "warden/1-x", "c.txt"); got != "a human's push\n" {
		t.Fatalf("human's commit lost: %q", got)
	}
}

// Merging the base: a clean merge is committed; a conflict returns its
// hunks with the branch's side checked out.
func TestMergeBaseCleanAndConflicted(t *testing.T) {
	bare, url := gitfixture.NewRepo(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	branchFromMain(t, bare, "warden/1-x")
	gitfixture.Commit(t, bare, "warden/1-x", map[string]string{"a.txt": "two\n"})
	head := headOf(t, bare, "warden/1-x")
	gitfixture.Commit(t, bare, "main", map[string]string{"b.txt": "base b\n"})
	m, ctx := newManager(t), context.Background()
	w, err := m.Prepare(ctx, PrepareRequest{Repo: "acme/calc", CloneURL: url, BaseBranch: "main", Branch: "warden/1-x", TaskKey: "f2", Start: head})
	if err != nil {
		t.Fatal(err)
	}
	if cs, err := w.MergeBase(ctx, "Bot", "bot@x"); err != nil || len(cs) != 0 {
		t.Fatalf("clean merge: %+v %v", cs, err)
	}
	if b, _ := w.ReadFile("b.txt"); string(b) != "base b\n" || w.BaseSHA != headOf(t, bare, "main") {
		t.Fatalf("base not merged: %q", b)
	}
	m.Remove(ctx, w)
	gitfixture.Commit(t, bare, "main", map[string]string{"a.txt": "three\n"})
	w, err = m.Prepare(ctx, PrepareRequest{Repo: "acme/calc", CloneURL: url, BaseBranch: "main", Branch: "warden/1-x", TaskKey: "f3", Start: head})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := w.MergeBase(ctx, "Bot", "bot@x")
	if err != nil || len(cs) != 1 || cs[0].Path != "a.txt" || !strings.Contains(cs[0].Hunks, "<<<<<<< ") || !strings.Contains(cs[0].Hunks, "three") {
		t.Fatalf("conflict: %+v %v", cs, err)
	}
	if b, _ := w.ReadFile("a.txt"); string(b) != "two\n" {
		t.Fatalf("branch's side not checked out: %q", b)
	}
}
