package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/guards"
	"github.com/warden-bot/warden/test/gitfixture"
)

// What a command does to the worktree after the guards judged it — a new
// file, a workflow force-added to the real index behind the mirror's
// info/exclude, a rewritten .git file — is not what gets pushed: the pushed
// commit's tree is the judged tree.
func TestCommitIsTheJudgedTree(t *testing.T) {
	bare, url := gitfixture.NewRepo(t, map[string]string{"a.go": "package a\n"})
	m := newManager(t)
	w := prepare(t, m, url, "judged")
	ctx := context.Background()
	os.WriteFile(filepath.Join(w.Dir, "a.go"), []byte("package a // fixed\n"), 0o644)
	changes, err := w.Changes(ctx)
	if err != nil || len(changes) != 1 || changes[0].Path != "a.go" {
		t.Fatalf("changes = %+v, %v", changes, err)
	}
	judged := w.JudgedTree()
	// What the test command did next, with the old runner's powers.
	os.MkdirAll(filepath.Join(w.Dir, ".github/workflows"), 0o755)
	os.WriteFile(filepath.Join(w.Dir, ".github/workflows/evil.yml"), []byte("on: push\n"), 0o644)
	os.WriteFile(filepath.Join(w.gitDir, "..", "..", "info", "exclude"), []byte(".github/\n"), 0o644)
	sh := exec.Command("git", "add", "-f", ".github/workflows/evil.yml")
	sh.Dir = w.Dir
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("force-add: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(w.Dir, "later_test.go"), []byte("package a\n"), 0o644)
	sha, err := w.Commit(ctx, "fix", "Bot", "bot@x")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Push(ctx, url, ""); err != nil {
		t.Fatal(err)
	}
	tree := strings.TrimSpace(gitOut(t, bare, "rev-parse", "warden/1-x^{tree}"))
	if tree != judged || strings.TrimSpace(gitOut(t, bare, "rev-parse", "warden/1-x")) != sha {
		t.Fatalf("pushed tree %s, judged %s", tree, judged)
	}
	if files := gitOut(t, bare, "ls-tree", "-r", "--name-only", "warden/1-x"); strings.Contains(files, "evil.yml") || strings.Contains(files, "later_test.go") {
		t.Fatalf("pushed files nobody judged:\n%s", files)
	}
}

// The guards see modes: a file made executable, a symlink, a nested
// repository (gitlink).
func TestChangesCarryModes(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"a.sh": "echo\n"})
	w := prepare(t, newManager(t), url, "modes")
	os.Chmod(filepath.Join(w.Dir, "a.sh"), 0o755)
	os.Symlink("/etc/passwd", filepath.Join(w.Dir, "link"))
	nested := filepath.Join(w.Dir, "vendor", "nested")
	os.MkdirAll(nested, 0o755)
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "x"}} {
		c := exec.Command("git", args...)
		c.Dir = nested
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	}
	changes, err := w.Changes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range changes {
		got[c.Path] = c.OldMode + ">" + c.NewMode
	}
	want := map[string]string{"a.sh": "100644>100755", "link": ">120000", "vendor/nested": ">160000"}
	for p, m := range want {
		if got[p] != m {
			t.Fatalf("modes = %v, want %v", got, want)
		}
	}
	err = guards.CheckDiff(changes, guards.Limits{})
	for _, rule := range []string{"executable", "symlink", "gitlink"} {
		if err == nil || !strings.Contains(err.Error(), rule) {
			t.Fatalf("guards missed %s: %v", rule, err)
		}
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

// Push reads the branch back: a remote that ends up holding another commit
// than the judged one (here a hook moves the branch) is an error, not a
// release.
func TestPushChecksTheRemoteHoldsTheJudgedCommit(t *testing.T) {
	bare, url := gitfixture.NewRepo(t, map[string]string{"a.go": "package a\n"})
	hook := filepath.Join(bare, "hooks", "post-receive")
	os.WriteFile(hook, []byte("#!/bin/sh\ngit update-ref refs/heads/warden/1-x refs/heads/main\n"), 0o755)
	w := prepare(t, newManager(t), url, "readback")
	ctx := context.Background()
	os.WriteFile(filepath.Join(w.Dir, "a.go"), []byte("package a // fixed\n"), 0o644)
	if _, err := w.Changes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, "fix", "Bot", "bot@x"); err != nil {
		t.Fatal(err)
	}
	if err := w.Push(ctx, url, ""); err == nil || !strings.Contains(err.Error(), "not the judged commit") {
		t.Fatalf("push = %v", err)
	}
}
