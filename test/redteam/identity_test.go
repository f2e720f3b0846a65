package redteam

// Threat-model rows: "Repository names change hands" and "The repository
// index". GitHub reuses names after renames and deletions, and a worktree's
// files are the repository author's: nothing one repository left on the
// worker's disk may reach another's tasks, and the index reads only what
// the commit tracks.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/repocontext/repoindex"
	"github.com/warden-bot/warden/test/gitfixture"
)

func identityGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// identityDefs lists every definition name in an index.
func identityDefs(x *repoindex.Index) string {
	var names []string
	for _, f := range x.Files {
		names = append(names, f.Path)
		for _, d := range f.Defs {
			names = append(names, d.Name)
		}
	}
	return strings.Join(names, " ")
}

// A committed symlink to a file outside the worktree, and an untracked
// file, never reach the index (on 326ec27 both did: os.ReadFile followed
// the link, ls-files listed --others and the cache kept them).
func TestIdentityIndexReadsOnlyTrackedRegularFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.go")
	if err := os.WriteFile(outside, []byte("package x\n\nfunc OutsideSecretFunc() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	identityGit(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package x\n\nfunc TrackedFunc() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	identityGit(t, dir, "add", "main.go", "link.go")
	identityGit(t, dir, "commit", "-qm", "x")
	if err := os.WriteFile(filepath.Join(dir, "untracked.go"), []byte("package x\n\nfunc OtherTenantFunc() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := repoindex.Open(context.Background(), dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got := identityDefs(x)
	if !strings.Contains(got, "TrackedFunc") {
		t.Fatalf("the tracked file is not indexed: %s", got)
	}
	for _, bad := range []string{"OutsideSecretFunc", "OtherTenantFunc"} {
		if strings.Contains(got, bad) {
			t.Errorf("index holds %s: %s", bad, got)
		}
	}
}

// A repository name that now belongs to another repository (a new id)
// starts with a clean mirror: the old repository's objects are gone (on
// 326ec27 the mirror was keyed by name and fetch --prune kept them).
func TestIdentityReusedNameStartsClean(t *testing.T) {
	oldBare, oldURL := gitfixture.NewRepo(t, map[string]string{"go.mod": "module x\n", "private.txt": "old owner's private content\n"})
	secret := identityGit(t, oldBare, "rev-parse", "main:private.txt")
	_, newURL := gitfixture.NewRepo(t, map[string]string{"go.mod": "module x\n"})
	m, err := workspace.New(t.TempDir(), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := workspace.PrepareRequest{Repo: "acme/calc", RepoID: 1001, CloneURL: oldURL, BaseBranch: "main", Branch: "warden/1-a", TaskKey: "acme-calc-1"}
	wt, err := m.Prepare(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	_ = m.Remove(ctx, wt)
	req.RepoID, req.CloneURL, req.TaskKey = 2002, newURL, "acme-calc-2"
	wt, err = m.Prepare(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Remove(ctx, wt)
	out, err := exec.Command("git", "-C", wt.Dir, "cat-file", "-p", secret).CombinedOutput()
	if err == nil || strings.Contains(string(out), "private content") {
		t.Fatalf("the new repository's worktree reads the old one's object %s: %s", secret, out)
	}
}
