package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-bot/warden/test/gitfixture"
)

// On a follow-up, what the default branch holds is read from the mirror,
// whatever the PR's worktree says, and a scratch checkout of it is made and
// removed beside the worktree.
func TestBaseFileAndCheckoutIgnoreThePRTree(t *testing.T) {
	bare, url := gitfixture.NewRepo(t, map[string]string{"setup.sh": "echo base\n", ".github/warden.yml": "setup: sh setup.sh\n"})
	branchFromMain(t, bare, "warden/2-x")
	gitfixture.Commit(t, bare, "warden/2-x", map[string]string{"setup.sh": "echo model\n", ".github/warden.yml": "setup: sh evil.sh\n"})
	m, ctx := newManager(t), context.Background()
	w, err := m.Prepare(ctx, PrepareRequest{Repo: "acme/calc", CloneURL: url, BaseBranch: "main", Branch: "warden/2-x", TaskKey: "b1",
		Start: headOf(t, bare, "warden/2-x")})
	if err != nil {
		t.Fatal(err)
	}
	if w.OnBase() {
		t.Fatal("a follow-up worktree reports it is on the base")
	}
	if b, err := w.BaseFile(ctx, ".github/warden.yml"); err != nil || string(b) != "setup: sh setup.sh\n" {
		t.Fatalf("base warden.yml = %q, %v", b, err)
	}
	if _, err := w.BaseFile(ctx, "nope.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	tree, remove, err := w.BaseCheckout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Verify(); err != nil {
		t.Fatal(err)
	}
	dir := tree.Dir
	if b, _ := os.ReadFile(filepath.Join(dir, "setup.sh")); string(b) != "echo base\n" {
		t.Fatalf("scratch checkout holds %q, want the default branch's script", b)
	}
	remove()
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("scratch checkout left behind")
	}
	if b, _ := w.ReadFile("setup.sh"); string(b) != "echo model\n" {
		t.Fatalf("the PR's worktree changed: %q", b)
	}
}
