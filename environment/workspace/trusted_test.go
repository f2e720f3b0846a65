package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/trusted"
)

// On a follow-up, what the default branch holds is read from the mirror,
// whatever the PR's worktree says, and a scratch checkout of it is made and
// removed beside the worktree.
func TestBaseInputsAndCheckoutIgnoreThePRTree(t *testing.T) {
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
	in, err := trusted.Read(ctx, w.BaseGit, w.BaseTip, "")
	if err != nil || string(in.ConfigRaw) != "setup: sh setup.sh\n" || in.Plan.Setup != "sh setup.sh" {
		t.Fatalf("base warden.yml = %q, setup %q, %v", in.ConfigRaw, in.Plan.Setup, err)
	}
	if _, err := in.Files.ReadFile("nope.txt"); !errors.Is(err, fs.ErrNotExist) {
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
