package effects

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/github/gitdb"
)

// KindPush is the journal kind of a commit put on a branch of GitHub.
const KindPush = "push"

// Push is the commit a push puts on Branch: Local, the commit Warden made,
// onto Expect ("" forces). Tree and Parents are set when the commit goes
// through the Git Database API, whose commit GitHub makes (and signs)
// itself: the re-read recognises it by them, as its sha is not Local.
type Push struct {
	Branch  string   `json:"branch"`
	Local   string   `json:"local"`
	Expect  string   `json:"expect,omitempty"`
	Tree    string   `json:"tree,omitempty"`
	Parents []string `json:"parents,omitempty"`
}

// PushKey is the idempotency key of putting local on branch of repo.
func PushKey(repo, branch, local string) string {
	return fmt.Sprintf("%s:%s:%s:%s", KindPush, repo, branch, local)
}

// PushIntent is the intent to put p on its branch of repo (PR n, 0 before
// the PR is opened).
func PushIntent(repo string, installation int64, n int, p Push) Intent {
	return Intent{Key: PushKey(repo, p.Branch, p.Local), Kind: KindPush, Repo: repo,
		Installation: installation, PR: n, SHA: p.Local, Push: &p}
}

// Worktree is the local side of a git push (workspace.Worktree has it):
// declared here because effects sits above the workspace on the
// architecture page and must not import it.
type Worktree interface {
	Push(ctx context.Context, remoteURL, token string) error
	PushOnto(ctx context.Context, remoteURL, token, expect string) error
}

// GitPush pushes it's commit from wt to remoteURL through the journal (nil:
// none): the intent is recorded before, and git's exit 0 (GitHub accepted
// the ref update) confirms it. A failed push leaves the intent for the
// sweep, which reads the branch (RedrivePush): git cannot say whether a
// push that died mid-way moved the ref.
func GitPush(ctx context.Context, j *Journal, it Intent, wt Worktree, remoteURL, token string) error {
	return journaled(ctx, j, it, func() error {
		if it.Push.Expect == "" {
			return wt.Push(ctx, remoteURL, token)
		}
		return wt.PushOnto(ctx, remoteURL, token, it.Push.Expect)
	})
}

// APICommit recreates local on GitHub through the Git Database API
// (gitdb.Create) through the journal: the ref update's answer confirms it.
func APICommit(ctx context.Context, j *Journal, it Intent, api gitdb.Git, obj gitdb.Objects, local gitdb.Local, to gitdb.Target) (gitdb.Result, error) {
	p := *it.Push
	p.Tree, p.Parents = local.Tree, local.Parents
	it.Push = &p
	var res gitdb.Result
	err := journaled(ctx, j, it, func() (err error) {
		res, err = gitdb.Create(ctx, api, obj, local, to)
		return err
	})
	return res, err
}

// journaled records it, acts, and confirms when act succeeded. A
// confirmation that cannot be written is not the push's failure: the
// intent stays and the sweep finds the branch at the commit.
func journaled(ctx context.Context, j *Journal, it Intent, act func() error) error {
	if j != nil {
		if err := j.Begin(ctx, it); err != nil {
			return err
		}
	}
	if err := act(); err != nil {
		return err
	}
	if j != nil {
		_ = j.Confirm(ctx, it.Key)
	}
	return nil
}

// RedrivePush settles an unconfirmed push by reading the branch on GitHub:
// at the intended commit (or GitHub's API-made commit of the same tree on
// the same parents) it is confirmed. Anywhere else the push did not happen
// (or was pushed over since); it is not pushed again from here: the task
// that owned it is retried by its queue (asynq) or recovered from the
// follow-up's in-flight record, which pushes anew. The intent is dropped.
func RedrivePush(ctx context.Context, j *Journal, g GitHub, it Intent, log *slog.Logger) error {
	if it.Push == nil {
		return j.Drop(ctx, it.Key) // written by no version of Warden: nothing to read
	}
	owner, name, _ := strings.Cut(it.Repo, "/")
	at, err := g.branchHead(ctx, owner, name, it.Push.Branch)
	if err != nil {
		return err
	}
	landed := at != "" && at == it.Push.Local
	if !landed && at != "" && it.Push.Tree != "" {
		if landed, err = g.madeFrom(ctx, owner, name, at, it.Push); err != nil {
			return err
		}
	}
	if landed {
		return j.Confirm(ctx, it.Key)
	}
	log.Info("unconfirmed push did not land; its task pushes again when retried", "repo", it.Repo,
		"branch", it.Push.Branch, "commit", it.Push.Local, "branch_at", at)
	return j.Drop(ctx, it.Key)
}

// branchHead is the commit branch is at on GitHub, "" when it does not exist.
func (g GitHub) branchHead(ctx context.Context, owner, name, branch string) (string, error) {
	ref, _, err := g.C.Git.GetRef(ctx, owner, name, "refs/heads/"+branch)
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read branch %s of %s/%s: %w", branch, owner, name, err)
	}
	sha := ref.GetObject().GetSHA()
	if sha == "" {
		return "", fmt.Errorf("read branch %s of %s/%s: GitHub's answer names no commit", branch, owner, name)
	}
	return sha, nil
}

// madeFrom reports whether commit sha is GitHub's recreation of p: the
// same tree on the same parents.
func (g GitHub) madeFrom(ctx context.Context, owner, name, sha string, p *Push) (bool, error) {
	c, _, err := g.C.Git.GetCommit(ctx, owner, name, sha)
	if err != nil {
		return false, fmt.Errorf("read commit %s of %s/%s: %w", sha, owner, name, err)
	}
	var parents []string
	for _, pc := range c.Parents {
		parents = append(parents, pc.GetSHA())
	}
	return c.GetTree().GetSHA() == p.Tree && slices.Equal(parents, p.Parents), nil
}
