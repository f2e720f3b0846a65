package pipeline

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/github/gitdb"
)

// publish puts the worktree's commit on its branch and answers the commit
// the branch is now at. It pushes with git, unless the repository is known
// to require signed commits or GitHub refuses the push for want of a
// verified signature (GH006/GH013): then the same tree goes through the Git
// Database API (gitdb), which GitHub signs, and the answer is GitHub's
// commit. expect "" forces the branch (a first attempt, from the base);
// otherwise only a branch still at expect moves (a lease); pr is the PR
// the branch heads (0 when none is known yet). Both go through
// the effects journal (one intent per branch and local commit): a push
// killed or failed mid-way is settled by the sweep reading the branch.
func (h *GitHubHost) publish(ctx context.Context, wt *workspace.Worktree, token, expect, local string, pr int) (string, error) {
	it := effects.PushIntent(h.repo(), h.Installation, pr, effects.Push{Branch: wt.Branch, Local: local, Expect: expect})
	if !h.Signed.Signed(h.repo()) {
		err := effects.GitPush(ctx, h.Effects, it, wt, h.CloneURL, token)
		if err == nil {
			return local, nil
		}
		if !gitdb.Refused(err) {
			return "", fmt.Errorf("push %s: %w", wt.Branch, err)
		}
		h.Signed.Mark(h.repo())
		h.logger().Info("push refused for want of signed commits; committing through the API", "repo", h.repo(), "issue", h.Number, "branch", wt.Branch)
	}
	return h.apiCommit(ctx, wt, it)
}

// apiCommit recreates the local commit through the Git Database API.
func (h *GitHubHost) apiCommit(ctx context.Context, wt *workspace.Worktree, it effects.Intent) (string, error) {
	local, err := wt.LocalCommit(ctx)
	if err != nil {
		return "", fmt.Errorf("describe the commit on %s: %w", wt.Branch, err)
	}
	to := gitdb.Target{Owner: h.Owner, Repo: h.Name, Ref: "refs/heads/" + wt.Branch, Expect: it.Push.Expect}
	res, err := effects.APICommit(ctx, h.Effects, it, h.Client.Git, wt, local, to)
	if err != nil {
		return "", fmt.Errorf("commit %s through the Git Database API (%d calls): %w", wt.Branch, res.Calls, err)
	}
	h.logger().Info("commit created through the Git Database API", "repo", h.repo(), "issue", h.Number,
		"branch", wt.Branch, "commit", res.SHA, "files", len(local.Entries), "calls", res.Calls)
	return res.SHA, nil
}

func (h *GitHubHost) logger() *slog.Logger {
	if h.Log != nil {
		return h.Log
	}
	return slog.Default()
}
