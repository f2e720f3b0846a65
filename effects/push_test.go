package effects_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/github/gitdb"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/harness"
)

// branchWorld is a fake repository whose branch "warden/1-fix" a push
// targets, the commit Warden made for it (local, not on the branch yet),
// and a journal.
type branchWorld struct {
	g      effects.GitHub
	j      *effects.Journal
	gh     *fakegithub.Server
	bare   string
	local  string
	intent effects.Intent
}

const branch = "warden/1-fix"

func newBranchWorld(t *testing.T) *branchWorld {
	t.Helper()
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	bare, cloneURL := gitfixture.NewRepo(t, map[string]string{"a.go": "package a\n"})
	gh.AddRepo("acme", "calc", cloneURL, "main")
	gitfixture.Commit(t, bare, "side", map[string]string{"b.go": "package a\n"})
	c := github.NewClient(nil).WithAuthToken(gh.InstallationToken(1))
	c.BaseURL, _ = url.Parse(gh.URL() + "/")
	rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: harness.RedisDB(t)})
	t.Cleanup(func() { rdb.Close() })
	w := &branchWorld{g: effects.GitHub{C: c}, j: effects.New(rdb), gh: gh, bare: bare, local: rev(t, bare, "side")}
	w.intent = effects.PushIntent("acme/calc", 1, 0, effects.Push{Branch: branch, Local: w.local})
	return w
}

func rev(t *testing.T, bare string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir=" + bare, "rev-parse"}, args...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// land moves the branch to sha on the fake GitHub, as a push does.
func (w *branchWorld) land(t *testing.T, sha string) {
	t.Helper()
	if out, err := exec.Command("git", "--git-dir="+w.bare, "update-ref", "refs/heads/"+branch, sha).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

// wt is a worktree whose push does what do says.
type wt struct{ do func() error }

func (f wt) Push(context.Context, string, string) error             { return f.do() }
func (f wt) PushOnto(context.Context, string, string, string) error { return f.do() }

// sweep re-drives the pending pushes an hour on and reports how many.
func (w *branchWorld) sweep(t *testing.T) int {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	n, err := w.j.Sweep(context.Background(), time.Now().Add(time.Hour), 10*time.Minute, func(ctx context.Context, it effects.Intent) error {
		return effects.RedrivePush(ctx, w.j, w.g, it, log)
	})
	if err != nil {
		t.Fatalf("sweep: %v", err)
	}
	return n
}

func (w *branchWorld) done(t *testing.T) bool {
	t.Helper()
	done, err := w.j.Done(context.Background(), w.intent.Key)
	if err != nil {
		t.Fatal(err)
	}
	return done
}

// git's exit 0 is GitHub's acceptance: the push is confirmed at once and
// leaves nothing to sweep; a failed push is not confirmed.
func TestGitPushConfirmsOnlyOnSuccess(t *testing.T) {
	w := newBranchWorld(t)
	ctx := context.Background()
	if err := effects.GitPush(ctx, w.j, w.intent, wt{func() error { return errors.New("remote hung up") }}, "u", "tok"); err == nil {
		t.Fatal("the push's error was swallowed")
	}
	if w.done(t) {
		t.Fatal("a failed push is confirmed")
	}
	if err := effects.GitPush(ctx, w.j, w.intent, wt{func() error { w.land(t, w.local); return nil }}, "u", "tok"); err != nil {
		t.Fatal(err)
	}
	if !w.done(t) || w.sweep(t) != 0 {
		t.Fatal("a pushed commit is not confirmed, or is still swept")
	}
}

// A push whose outcome is unknown (git died after GitHub moved the ref) is
// confirmed by the sweep's read of the branch; one that did not land is
// dropped, not confirmed and not re-driven again.
func TestUnconfirmedPushIsSettledByTheBranch(t *testing.T) {
	w := newBranchWorld(t)
	ctx := context.Background()
	lost := wt{func() error { w.land(t, w.local); return errors.New("connection reset") }}
	_ = effects.GitPush(ctx, w.j, w.intent, lost, "u", "tok")
	if w.done(t) {
		t.Fatal("confirmed before anything read GitHub")
	}
	if w.sweep(t); !w.done(t) {
		t.Fatal("the branch at the commit does not confirm the push")
	}

	w = newBranchWorld(t)
	failed := wt{func() error { w.land(t, rev(t, w.bare, "main")); return errors.New("connection reset") }}
	_ = effects.GitPush(ctx, w.j, w.intent, failed, "u", "tok")
	if n := w.sweep(t); n != 1 || w.done(t) {
		t.Fatalf("re-driven %d, done %v: a push that did not land is confirmed", n, w.done(t))
	}
	if n := w.sweep(t); n != 0 {
		t.Fatalf("a push that did not land is re-driven again (%d)", n)
	}
}

// Through the Git Database API GitHub makes the commit itself: when the
// ref update's answer is lost, the sweep recognises GitHub's commit by its
// tree and parents.
func TestLostAPICommitAnswerIsConfirmedByTheTree(t *testing.T) {
	w := newBranchWorld(t)
	ctx := context.Background()
	main := rev(t, w.bare, "main")
	tree := rev(t, w.bare, "main^{tree}")
	local := gitdb.Local{Tree: tree, BaseTree: tree, Parents: []string{main}, Message: "Fix (#1)"}
	w.gh.ApplyThenFail("POST", "/repos/acme/calc/git/refs", 1, 502, []byte(`{"message":"Server Error"}`), nil)
	to := gitdb.Target{Owner: "acme", Repo: "calc", Ref: "refs/heads/" + branch}
	if _, err := effects.APICommit(ctx, w.j, w.intent, w.g.C.Git, nil, local, to); err == nil {
		t.Fatal("a lost answer reads as success")
	}
	if w.done(t) {
		t.Fatal("confirmed without GitHub's answer")
	}
	if w.sweep(t); !w.done(t) {
		t.Fatal("GitHub's commit of the same tree on the same parents does not confirm the push")
	}
}
