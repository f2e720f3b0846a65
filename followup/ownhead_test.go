package followup

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/test/fakegithub"
)

// The own-head rule of OpenPR (#38, after the merge of #41): a run that
// finds its PR only on GitHub (Redis has no record: the run that opened it
// was killed in Release) starts afresh from the base while the PR's head
// is Warden's own commit; a person's head is continued, never pushed over;
// a held branch is answered as held. GitHub answers who wrote the head
// (GET commits/{ref}), as it links the App's commits to its bot.
func TestPRFoundOnlyOnGitHubByItsHead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		authors []string // the branch's commits on the base, oldest first
		held    bool
		fresh   bool
		stop    bool
	}{
		{name: "Warden's commits only: a fresh run from the base", authors: []string{fakegithub.BotLogin, fakegithub.BotLogin}, fresh: true},
		{name: "a person's head: continued", authors: []string{fakegithub.BotLogin, "bob"}},
		{name: "Warden's head over a person's commit (after a hand-back): continued", authors: []string{fakegithub.BotLogin, "bob", fakegithub.BotLogin}},
		{name: "held: answered as held", authors: []string{fakegithub.BotLogin, "bob"}, held: true, stop: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ctx := newPRWorld(t), context.Background()
			w.host.Poster = &comments.Poster{Client: w.host.Client.Issues, BotLogin: fakegithub.BotLogin}
			w.gh.AddIssue(crashRepo, 3, "Fix", "", "alice", "warden:maintenance")
			resetBranch(t, w.bare, "warden/3-fix", "main")
			var head string
			for _, a := range tc.authors {
				head = commitAs(t, w.bare, "warden/3-fix", a)
			}
			if tc.held {
				if _, err := w.store.HoldSince(ctx, crashRepo, w.pr, "bob", time.Time{}); err != nil {
					t.Fatal(err)
				}
			}
			p := w.payload()
			p.Reason, p.PR = jobs.ReasonRetry, 0 // Redis does not know the PR
			tk := pipeline.Task{Repo: crashRepo, Issue: 3}
			stop, err := w.runner(nil).Continue(ctx, w.host, &tk, p)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.stop && (stop == nil || tk.Resume != nil):
				t.Fatalf("a held branch was not answered as held: stop %v, resume %+v", stop, tk.Resume)
			case tc.fresh && (stop != nil || tk.Resume != nil || w.host.Expect != ""):
				t.Fatalf("Warden's own head was continued instead of a fresh run: stop %v, resume %+v", stop, tk.Resume)
			case !tc.fresh && !tc.stop && (stop != nil || tk.Resume == nil || tk.Resume.HeadSHA != head || w.host.Expect != head):
				t.Fatalf("a person's head %s was not continued: stop %v, resume %+v, expect %q", head[:7], stop, tk.Resume, w.host.Expect)
			}
		})
	}
}

// commitAs adds an empty commit by author on branch of the bare repository.
func commitAs(t *testing.T, bare, branch, author string) string {
	t.Helper()
	run := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", bare}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME="+author, "GIT_AUTHOR_EMAIL="+author+"@example.com",
			"GIT_COMMITTER_NAME="+author, "GIT_COMMITTER_EMAIL="+author+"@example.com")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	parent := run("rev-parse", branch)
	sha := run("commit-tree", parent+"^{tree}", "-p", parent, "-m", "by "+author)
	run("update-ref", "refs/heads/"+branch, sha)
	return sha
}

// resetBranch points branch of the bare repository at to.
func resetBranch(t *testing.T, bare, branch, to string) {
	t.Helper()
	if out, err := exec.Command("git", "-C", bare, "update-ref", "refs/heads/"+branch, "refs/heads/"+to).CombinedOutput(); err != nil {
		t.Fatalf("reset %s to %s: %v: %s", branch, to, err, out)
	}
}
