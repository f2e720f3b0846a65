package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// git runs git in dir (a scratch clone of the world's repository).
func (w *world) gitIn(dir string, args ...string) string {
	w.T.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.T.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// withModes adds an executable script and a symlink to main, as a
// maintainer's push would.
func (w *world) withModes() {
	w.T.Helper()
	dir := filepath.Join(w.T.TempDir(), "c")
	w.gitIn(filepath.Dir(dir), "clone", "-q", w.Bare, dir)
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\ngo test ./...\n"), 0o755); err != nil {
		w.T.Fatal(err)
	}
	if err := os.Symlink("calc/calc.go", filepath.Join(dir, "calc.link")); err != nil {
		w.T.Fatal(err)
	}
	w.gitIn(dir, "add", "-A")
	w.gitIn(dir, "commit", "-q", "-m", "a script and a link")
	w.gitIn(dir, "push", "-q", "origin", "HEAD:main")
}

// receivePacks counts the pushes the git endpoint answered.
func (w *world) receivePacks() int {
	n := 0
	for _, r := range w.GH.GitRequests() {
		if strings.HasSuffix(r.Path, "/git-receive-pack") {
			n++
		}
	}
	return n
}

// Acceptance (issue 39): under a ruleset requiring signed commits, the
// push is refused as GitHub refuses it (GH013), and the PR's commit is one
// GitHub created through the Git Database API: its parent the base, its
// tree the judged tree (the base's with the model's edit, every other
// entry's mode kept: an executable script, a symlink).
func TestSignedCommitsGoThroughTheAPI(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.withModes()
	w.GH.AddRule(repo, "required_signatures", nil)
	w.Model.Script(happyScript)
	if code := w.Label(90, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice"); code != http.StatusAccepted {
		t.Fatalf("answered %d", code)
	}
	if rec := w.OutcomeOf(90, 90*time.Second); rec.Outcome != outcome.Completed {
		t.Fatalf("record = %+v", rec)
	}
	p := w.Pull()
	if !w.GH.APICommit(repo, p.HeadSHA) {
		t.Fatalf("the PR's head %s is not a commit GitHub created through its API", p.HeadSHA)
	}
	if w.receivePacks() == 0 {
		t.Fatal("no push was tried first")
	}
	main := strings.TrimSpace(w.gitBare("rev-parse", "main"))
	if got := w.parents(p.Head); len(got) != 1 || got[0] != main {
		t.Fatalf("parents %v, want the base %s", got, main)
	}
	// The judged tree: the base with the model's calc.go, built by git.
	dir := filepath.Join(t.TempDir(), "j")
	w.gitIn(filepath.Dir(dir), "clone", "-q", w.Bare, dir)
	if err := os.WriteFile(filepath.Join(dir, "calc", "calc.go"), []byte(w.gitBare("show", p.HeadSHA+":calc/calc.go")), 0o644); err != nil {
		t.Fatal(err)
	}
	w.gitIn(dir, "add", "-A")
	if want, got := w.gitIn(dir, "write-tree"), strings.TrimSpace(w.gitBare("rev-parse", p.HeadSHA+"^{tree}")); got != want {
		t.Fatalf("pushed tree %s, want %s", got, want)
	}
	ls := w.gitBare("ls-tree", p.HeadSHA)
	if !strings.Contains(ls, "100755 blob") || !strings.Contains(ls, "120000 blob") {
		t.Fatalf("modes lost:\n%s", ls)
	}
	// blobs, the tree, the commit and the ref: what make bench reports.
	calls := w.GH.CountCalls(http.MethodPost, "/repos/"+repo+"/git/") + w.GH.CountCalls(http.MethodPatch, "/repos/"+repo+"/git/") +
		w.GH.CountCalls(http.MethodGet, "/repos/"+repo+"/git/")
	t.Logf("calls per commit through the Git Database API: %d (1 changed file)", calls)
	if calls != 4 {
		t.Fatalf("%d Git Database API calls for a one-file commit, want 4 (blob, tree, commit, ref)", calls)
	}
}

// A follow-up under the rule goes through the API onto the PR's head only
// (a lease: the ref read, then a fast-forward), and needs no refused push
// first: the repository's rule was learned.
func TestSignedFollowupLeasesThroughTheAPI(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.GH.AddRule(repo, "required_signatures", nil)
	w.FollowPushes()
	w.Model.Script(followupScript)
	w.Label(91, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	if rec := w.OutcomeOf(91, 90*time.Second); rec.Outcome != outcome.Completed {
		t.Fatalf("record = %+v", rec)
	}
	p := w.Pull()
	pushes := w.receivePacks()
	w.reviewWith(p, "alice", "changes_requested", "Name the sum.", inline{"calc/calc.go", "@@ -3,4 +3,4 @@\n-\treturn a - b\n+\treturn a + b", "Name it.", 5})
	w.Eventually(90*time.Second, func() bool { return w.Pull().HeadSHA != p.HeadSHA }, "no follow-up commit")
	head := w.Pull().HeadSHA
	if !w.GH.APICommit(repo, head) {
		t.Fatalf("the follow-up's commit %s is not GitHub's", head)
	}
	if got := w.parents(p.Head); len(got) != 1 || got[0] != p.HeadSHA {
		t.Fatalf("parents %v, want the PR's head %s", got, p.HeadSHA)
	}
	if w.receivePacks() != pushes {
		t.Fatal("a push was tried again in a repository known to require signatures")
	}
	if w.GH.CountCalls(http.MethodPatch, "/repos/"+repo+"/git/refs/heads/"+p.Head) != 1 {
		t.Fatal("the follow-up did not move the branch with one update")
	}
}

// gitBare runs git on the world's bare repository, its output as is.
func (w *world) gitBare(args ...string) string {
	w.T.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir=" + w.Bare}, args...)...).CombinedOutput()
	if err != nil {
		w.T.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
