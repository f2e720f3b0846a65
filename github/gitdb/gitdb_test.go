package gitdb_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/github/gitdb"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/gitfixture"
)

// local is a clone of the fake's repository where a test commits.
type local struct {
	t   *testing.T
	dir string
}

func (l local) git(args ...string) string {
	l.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", l.dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		l.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (l local) Blob(_ context.Context, sha string) ([]byte, error) {
	return exec.Command("git", "-C", l.dir, "cat-file", "blob", sha).Output()
}

// describe is the commit at HEAD as gitdb takes it, entries by hand from
// ls-tree (what workspace.LocalCommit reads with diff-tree).
func (l local) describe(paths map[string]bool) gitdb.Local {
	c := gitdb.Local{Tree: l.git("rev-parse", "HEAD^{tree}"), BaseTree: l.git("rev-parse", "HEAD~1^{tree}"),
		Parents: []string{l.git("rev-parse", "HEAD~1")}, Message: "change\n"}
	for p, deleted := range paths {
		if deleted {
			c.Entries = append(c.Entries, gitdb.Entry{Path: p, Delete: true})
			continue
		}
		f := strings.Fields(l.git("ls-tree", "HEAD", "--", p))
		c.Entries = append(c.Entries, gitdb.Entry{Path: p, Mode: f[0], SHA: f[2]})
	}
	return c
}

func setup(t *testing.T) (*fakegithub.Server, *github.Client, local, string) {
	t.Helper()
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	bare, cloneURL := gitfixture.NewRepo(t, map[string]string{"a.txt": "a\n", "run.sh": "echo hi\n", "old.txt": "old\n", "dir/x.txt": "x\n"})
	gh.AddRepo("acme", "calc", cloneURL, "main")
	c := github.NewClient(nil).WithAuthToken(gh.InstallationToken(1))
	c.BaseURL, _ = url.Parse(gh.URL() + "/")
	l := local{t: t, dir: filepath.Join(t.TempDir(), "w")}
	if out, err := exec.Command("git", "clone", "-q", cloneURL, l.dir).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	// An executable bit, a symlink, a deletion, a binary file and a new
	// nested file: every kind of tree entry a change can have.
	if err := os.Chmod(filepath.Join(l.dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(l.dir, "link")); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(l.dir, "bin.dat"), []byte{0, 1, 2, 0xff, '\n'}, 0o644))
	must(t, os.MkdirAll(filepath.Join(l.dir, "new", "deep"), 0o755))
	must(t, os.WriteFile(filepath.Join(l.dir, "new", "deep", "y.go"), []byte("package y\n"), 0o644))
	l.git("rm", "-q", "old.txt")
	l.git("add", "-A")
	l.git("commit", "-q", "-m", "change")
	return gh, c, l, bare
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var changed = map[string]bool{"run.sh": false, "link": false, "bin.dat": false, "new/deep/y.go": false, "old.txt": true}

func bareGit(t *testing.T, bare string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir=" + bare}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// The commit GitHub makes has the judged tree, every mode kept, no author
// of Warden's choosing (GitHub's, signed), and the branch is created at it.
func TestCreateKeepsModesAndTheJudgedTree(t *testing.T) {
	gh, c, l, bare := setup(t)
	loc := l.describe(changed)
	res, err := gitdb.Create(context.Background(), c.Git, l, loc, gitdb.Target{Owner: "acme", Repo: "calc", Ref: "refs/heads/warden/issue-7"})
	if err != nil {
		t.Fatal(err)
	}
	if got := bareGit(t, bare, "rev-parse", "refs/heads/warden/issue-7"); got != res.SHA {
		t.Fatalf("branch at %s, want %s", got, res.SHA)
	}
	if got := bareGit(t, bare, "rev-parse", res.SHA+"^{tree}"); got != loc.Tree {
		t.Fatalf("pushed tree %s, judged %s", got, loc.Tree)
	}
	if !gh.APICommit("acme/calc", res.SHA) {
		t.Fatal("the commit is not one GitHub created and signed")
	}
	ls := bareGit(t, bare, "ls-tree", "-r", res.SHA)
	for _, want := range []string{"100755 blob", "120000 blob"} {
		if !strings.Contains(ls, want) {
			t.Errorf("tree lacks a %s entry:\n%s", want, ls)
		}
	}
	if strings.Contains(ls, "old.txt") {
		t.Errorf("old.txt not deleted:\n%s", ls)
	}
	// 4 distinct blobs, the tree, the commit, the ref.
	if res.Calls != 7 {
		t.Errorf("%d calls, want 7", res.Calls)
	}
}

// A tree GitHub computes that is not the judged tree moves no ref.
func TestCreateRefusesAnotherTree(t *testing.T) {
	_, c, l, bare := setup(t)
	loc := l.describe(changed)
	loc.Entries = loc.Entries[1:] // one change lost on the way
	_, err := gitdb.Create(context.Background(), c.Git, l, loc, gitdb.Target{Owner: "acme", Repo: "calc", Ref: "refs/heads/warden/issue-7"})
	if err == nil || !strings.Contains(err.Error(), "not the judged tree") {
		t.Fatalf("err = %v, want the tree refused", err)
	}
	if strings.Contains(bareGit(t, bare, "branch", "--list"), "warden/issue-7") {
		t.Fatal("the branch was created")
	}
}

// Without a lease an existing branch is forced (as git push --force); with
// one, a branch that moved is left alone (ErrLease), and one still at the
// expected head moves.
func TestCreateForcesOrLeases(t *testing.T) {
	_, c, l, bare := setup(t)
	loc := l.describe(changed)
	base := loc.Parents[0]
	gitfixture.Commit(t, bare, "warden/issue-7", map[string]string{"other.txt": "someone\n"})
	other := bareGit(t, bare, "rev-parse", "refs/heads/warden/issue-7")
	to := gitdb.Target{Owner: "acme", Repo: "calc", Ref: "refs/heads/warden/issue-7", Expect: base}
	if _, err := gitdb.Create(context.Background(), c.Git, l, loc, to); !errors.Is(err, gitdb.ErrLease) {
		t.Fatalf("lease on a moved branch: err = %v, want ErrLease", err)
	}
	if got := bareGit(t, bare, "rev-parse", "refs/heads/warden/issue-7"); got != other {
		t.Fatalf("a push by someone else was overwritten: branch at %s", got)
	}
	to.Expect = ""
	res, err := gitdb.Create(context.Background(), c.Git, l, loc, to)
	if err != nil {
		t.Fatal(err)
	}
	if got := bareGit(t, bare, "rev-parse", "refs/heads/warden/issue-7"); got != res.SHA {
		t.Fatalf("forced update: branch at %s, want %s", got, res.SHA)
	}
	// A lease on the head it is at moves it on, as a fast-forward.
	next := gitdb.Local{Tree: loc.Tree, BaseTree: loc.Tree, Parents: []string{res.SHA}, Message: "next\n"}
	to.Expect = res.SHA
	res2, err := gitdb.Create(context.Background(), c.Git, l, next, to)
	if err != nil {
		t.Fatal(err)
	}
	if got := bareGit(t, bare, "rev-parse", res2.SHA+"~1"); got != res.SHA {
		t.Fatalf("parent %s, want %s", got, res.SHA)
	}
	// Someone resets the branch back to the base: a fast-forward from there
	// would pass GitHub, the lease must not.
	bareGit(t, bare, "update-ref", "refs/heads/warden/issue-7", base)
	to.Expect = res2.SHA
	after := gitdb.Local{Tree: loc.Tree, BaseTree: loc.Tree, Parents: []string{res2.SHA}, Message: "after\n"}
	if _, err := gitdb.Create(context.Background(), c.Git, l, after, to); !errors.Is(err, gitdb.ErrLease) {
		t.Fatalf("lease on a branch reset behind it: err = %v, want ErrLease", err)
	}
	if got := bareGit(t, bare, "rev-parse", "refs/heads/warden/issue-7"); got != base {
		t.Fatalf("the reset branch was moved to %s", got)
	}
}

// GitHub's refusals of a push under a signature rule, as git prints them.
func TestRefused(t *testing.T) {
	for _, s := range []string{
		"remote: error: GH013: Repository rule violations found for refs/heads/x.\nremote: - Commits must have verified signatures.",
		"remote: error: GH006: Protected branch update failed for refs/heads/x.\nremote: error: Commits must have verified signatures.",
	} {
		if !gitdb.Refused(errors.New(s)) {
			t.Errorf("not recognised: %q", s)
		}
	}
	if gitdb.Refused(errors.New("remote: error: GH006: Protected branch update failed for refs/heads/x.\nremote: error: Required status check")) || gitdb.Refused(nil) {
		t.Error("another refusal taken for a signature rule")
	}
}
