package followup

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

// A run of an issue that already has an open Warden PR (a `/warden retry`
// on the issue, a relabel, an unblock, a deferred re-run) continues that
// PR: from its head, pushing only onto it. While someone else's push holds
// the branch it changes nothing and says how to lift the hold. Before
// this, such a run force-pushed the branch from the base and erased the
// maintainer's commit and every follow-up commit.

// OpenPR is the issue's open Warden PR (nil when none) and who holds its
// branch ("" when Warden may change it).
// Redis only remembers the PR; GitHub decides: without the record (it
// expired, or the run that opened the PR died first) the open PRs are
// asked, so no run assumes "no PR" and force-pushes the branch from base.
func (r *Runner) OpenPR(ctx context.Context, host *pipeline.GitHubHost, p jobs.RunPayload) (*github.PullRequest, string, error) {
	n, err := r.Store.IssuePR(ctx, p.Repo, p.Issue)
	if err != nil {
		return nil, "", err
	}
	found := n == 0
	if found {
		if n, err = r.findOpenPR(ctx, host, p.Issue); err != nil || n == 0 {
			return nil, "", err
		}
	}
	pr, _, err := host.Client.PullRequests.Get(ctx, host.Owner, host.Name, n)
	if err != nil {
		return nil, "", fmt.Errorf("get PR #%d of %s#%d: %w", n, p.Repo, p.Issue, err)
	}
	if pr.GetState() != "open" || pr.GetUser().GetLogin() != host.BotLogin || !strings.HasPrefix(pr.GetHead().GetRef(), r.Prefix+"/") {
		return nil, "", nil
	}
	by, err := r.Store.Held(ctx, p.Repo, n)
	if err != nil || !found || by != "" {
		return pr, by, err
	}
	// Found on GitHub only: the run that opened it died before it ended
	// (a kill in Release). While every commit on the branch is Warden's,
	// nothing of a person's is there, and the run starts afresh from the
	// base as that run did; a branch with anyone else's commit — even
	// under a Warden commit, as after a hand-back — is continued, never
	// force-pushed over.
	if own, err := r.onlyWardens(ctx, host, pr); err != nil || own {
		return nil, "", err
	}
	if err := r.Store.SetIssuePR(ctx, p.Repo, p.Issue, n); err != nil {
		r.Log.Warn("open PR found on GitHub not remembered", "repo", p.Repo, "issue", p.Issue, "pr", n, "err", err)
	}
	return pr, "", nil
}

// findOpenPR is the number of the issue's open Warden PR as GitHub lists
// it (head branch <prefix>/<issue>-… in the repository itself, opened by
// the App), or 0 when there is none.
func (r *Runner) findOpenPR(ctx context.Context, host *pipeline.GitHubHost, issue int) (int, error) {
	head := fmt.Sprintf("%s/%d-", r.Prefix, issue)
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	for range maxPRPages {
		list, resp, err := host.Client.PullRequests.List(ctx, host.Owner, host.Name, opts)
		if err != nil {
			return 0, fmt.Errorf("list open PRs of %s/%s for #%d: %w", host.Owner, host.Name, issue, err)
		}
		for _, x := range list {
			if strings.HasPrefix(x.GetHead().GetRef(), head) && x.GetUser().GetLogin() == host.BotLogin &&
				x.GetHead().GetRepo().GetFullName() == x.GetBase().GetRepo().GetFullName() {
				return x.GetNumber(), nil
			}
		}
		if opts.Page = resp.NextPage; opts.Page == 0 {
			return 0, nil
		}
	}
	// More open PRs than Warden reads: unknown is not "none".
	return 0, fmt.Errorf("list open PRs of %s/%s for #%d: more than %d pages", host.Owner, host.Name, issue, maxPRPages)
}

// onlyWardens reports whether every commit of the PR is Warden's: authored
// by its bot, as Warden commits (git or the Git Database API). A branch
// longer than GitHub lists is not known to be Warden's alone.
func (r *Runner) onlyWardens(ctx context.Context, host *pipeline.GitHubHost, pr *github.PullRequest) (bool, error) {
	opts, seen := &github.ListOptions{PerPage: 100}, 0
	for range maxCommitPages {
		list, resp, err := host.Client.PullRequests.ListCommits(ctx, host.Owner, host.Name, pr.GetNumber(), opts)
		if err != nil {
			return false, fmt.Errorf("list the commits of PR #%d: %w", pr.GetNumber(), err)
		}
		for _, c := range list {
			if c.GetAuthor().GetLogin() != host.BotLogin && c.GetCommit().GetAuthor().GetName() != host.BotLogin {
				return false, nil
			}
		}
		seen += len(list)
		if opts.Page = resp.NextPage; opts.Page == 0 {
			return seen > 0, nil
		}
	}
	return false, nil
}

// maxCommitPages covers the 250 commits GitHub lists for a PR.
const maxCommitPages = 3

// maxPRPages bounds the open-PR listing (100 a page).
const maxPRPages = 20

// Continue prepares a run on the issue's open PR: t resumes the PR's
// branch and host pushes only onto its head. A held branch answers a
// result instead (the run does nothing).
func (r *Runner) Continue(ctx context.Context, host *pipeline.GitHubHost, t *pipeline.Task, p jobs.RunPayload) (*pipeline.Result, error) {
	pr, by, err := r.OpenPR(ctx, host, p)
	if err != nil || pr == nil {
		return nil, err
	}
	if by != "" && !r.handBack(ctx, p, pr.GetNumber(), by) {
		res := r.heldRun(ctx, host, p, pr.GetNumber(), by)
		return &res, nil
	}
	if err := r.Store.Running(ctx, p.Repo, pr.GetNumber()); err != nil {
		return nil, err
	}
	// The PR may sit in the merge queue or under auto-merge: GitHub would
	// merge the head this run is about to change.
	if err := r.takeBack(ctx, p, pr.GetNumber()); err != nil {
		_ = r.Store.RunEnded(ctx, p.Repo, pr.GetNumber()) // the run stops here; its retry marks it again
		return nil, fmt.Errorf("take PR #%d back from GitHub's merging before continuing it: %w", pr.GetNumber(), err)
	}
	t.Resume = &pipeline.Resume{PR: pr.GetNumber(), Branch: pr.GetHead().GetRef(), HeadSHA: pr.GetHead().GetSHA()}
	host.Expect = pr.GetHead().GetSHA()
	return nil, nil
}

// Ended ends what Continue began, whatever the run's outcome: the PR is no
// longer busy with it, and an evaluation skipped meanwhile (a green check
// on the head the run was changing) is queued now.
func (r *Runner) Ended(ctx context.Context, p jobs.RunPayload, rs *pipeline.Resume) {
	if rs == nil {
		return
	}
	if err := r.Store.RunEnded(ctx, p.Repo, rs.PR); err != nil {
		r.Log.Warn("PR stays busy until the run mark expires", "repo", p.Repo, "issue", p.Issue, "pr", rs.PR, "err", err)
	}
	p.PR = rs.PR
	r.finish(ctx, p)
}

// handBack lifts the hold for a writer's `/warden retry` on the issue
// (the router checked the writer) written after the hold's last push: the
// run continues the PR from its head, on top of the human's commits, and
// is itself the hand-back's work. An older retry leaves the hold.
func (r *Runner) handBack(ctx context.Context, p jobs.RunPayload, pr int, by string) bool {
	if p.Reason != jobs.ReasonRetry || p.RetryAt.IsZero() {
		return false
	}
	released, err := r.Store.ReleaseIfBefore(ctx, p.Repo, p.Installation, pr, p.RetryAt)
	if err != nil || !released {
		r.Log.Info("issue retry does not hand the branch back", "repo", p.Repo, "issue", p.Issue, "pr", pr, "held_by", by, "err", err)
		return false
	}
	if err := r.Store.HandedBack(ctx, p.Repo, pr); err != nil {
		r.Log.Warn("hand-back not settled", "repo", p.Repo, "issue", p.Issue, "pr", pr, "err", err)
	}
	r.Log.Info("issue retry hands the branch back", "repo", p.Repo, "issue", p.Issue, "pr", pr, "held_by", by, "sender", p.Sender)
	return true
}

// heldRun tells the issue its PR's branch is held and how to lift it.
func (r *Runner) heldRun(ctx context.Context, host *pipeline.GitHubHost, p jobs.RunPayload, pr int, by string) pipeline.Result {
	msg := fmt.Sprintf("PR #%d's branch is held: @%s pushed to it, so Warden changes nothing on it (no new attempt, follow-up, CI fix or auto-merge). "+
		"A user with write access can comment `/%s retry` here or on PR #%d to hand the branch back.", pr, by, r.Prefix, pr)
	r.Log.Info("run on a held PR branch: nothing changed", "repo", p.Repo, "issue", p.Issue, "pr", pr, "by", by)
	if err := host.Poster.Reply(ctx, host.Owner, host.Name, p.Issue, msg); err != nil {
		return transient(fmt.Sprintf("tell #%d its PR is held: %v", p.Issue, err))
	}
	if err := host.State(ctx, pipeline.StatePROpen); err != nil {
		r.Log.Warn("state label not set", "repo", p.Repo, "issue", p.Issue, "err", err)
	}
	return pipeline.Result{Record: outcome.Record{Outcome: outcome.Completed, PR: pr,
		Summary: fmt.Sprintf("PR #%d is held after a push by @%s; nothing changed", pr, by)}}
}
