package lifecycle

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/jobs"
)

// held reports whether someone else pushed to the PR's branch: Warden then
// neither fixes, updates nor merges it until a writer's `/warden retry`.
func (l *Lifecycle) held(ctx context.Context, x *pr, log *slog.Logger) bool {
	if l.Followups == nil {
		return false
	}
	by, err := l.Followups.Held(ctx, x.owner+"/"+x.name, x.GetNumber())
	if err != nil {
		log.Warn("hold not read; leaving the PR alone", "err", err)
		return true // fail closed: a human's push must not be overwritten
	}
	if by != "" {
		log.Info("branch held after a push by someone else; not touching it", "by", by)
	}
	return by != ""
}

// queueCIFix hands a red head to a follow-up on the same branch, with what
// failed: check run output, annotations and the Actions job log's tail.
func (l *Lifecycle) queueCIFix(ctx context.Context, c *github.Client, x *pr, repo *github.Repository) error {
	full := x.owner + "/" + x.name
	redact := func(s string) string { return s }
	if l.Redactor != nil {
		redact = l.Redactor.Redact
	}
	it, err := followup.Evidence(ctx, c, x.owner, x.name, x.GetHead().GetSHA(), redact)
	if err != nil {
		return err
	}
	if l.Followups != nil {
		if _, err := l.Followups.Add(ctx, full, x.GetNumber(), it); err != nil {
			return fmt.Errorf("store CI evidence: %w", err)
		}
	}
	_, err = l.Queue.EnqueueRun(ctx, jobs.RunPayload{Repo: full, RepoID: x.GetBase().GetRepo().GetID(), Installation: x.installation, Issue: x.issue,
		Mode: x.mode, CloneURL: repo.GetCloneURL(), DefaultBranch: repo.GetDefaultBranch(),
		Reason: jobs.ReasonFollowup, PR: x.GetNumber()})
	return err
}

// ensureFollowup queues a follow-up for the PR (idempotent: one queued or
// running takes the feedback along), from what the PR itself says of its
// repository: no extra read.
func (l *Lifecycle) ensureFollowup(ctx context.Context, x *pr) error {
	repo := x.GetBase().GetRepo()
	if repo == nil || repo.GetCloneURL() == "" {
		return nil // an older payload: the next feedback event queues it
	}
	_, err := l.Queue.EnqueueRun(ctx, jobs.RunPayload{Repo: x.owner + "/" + x.name, RepoID: x.GetBase().GetRepo().GetID(), Installation: x.installation, Issue: x.issue,
		Mode: x.mode, CloneURL: repo.GetCloneURL(), DefaultBranch: repo.GetDefaultBranch(), Reason: jobs.ReasonFollowup, PR: x.GetNumber()})
	return err
}

// branchWork is what Warden does to its PR's branch before judging it:
// nothing while a human holds it (stop), and a conflict update when GitHub
// reports the PR unmergeable (stop: no merge until the update is pushed
// and GitHub says mergeable again).
func (l *Lifecycle) branchWork(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) (bool, error) {
	if l.held(ctx, x, log) {
		return true, l.unbind(ctx, c, x, log) // GitHub must not merge it either
	}
	if l.Followups == nil {
		return false, nil
	}
	if busy, err := l.Followups.Busy(ctx, x.owner+"/"+x.name, x.GetNumber()); err != nil || busy {
		log.Info("feedback waiting or a follow-up running; the PR is not merged now", "err", err)
		if err == nil {
			err = l.Followups.Skipped(ctx, x.owner+"/"+x.name, x.GetNumber())
		}
		if err == nil { // feedback whose enqueue failed gets its follow-up now
			err = l.ensureFollowup(ctx, x)
		}
		if err == nil { // a changes-requested review while queued: not merged behind it
			err = l.unbind(ctx, c, x, log)
		}
		return true, err
	}
	if x.Mergeable == nil || *x.Mergeable {
		return false, nil // null is not computed yet, not a conflict: maybeMerge waits for it
	}
	full := x.owner + "/" + x.name
	it := followup.Item{Kind: followup.KindConflict, SHA: x.GetHead().GetSHA(), Body: "GitHub reports a conflict with the base."}
	added, err := l.Followups.Add(ctx, full, x.GetNumber(), it)
	if err != nil {
		return true, err
	}
	if !added { // pending still: queue again (idempotent), the first may have failed
		if n, err := l.Followups.Pending(ctx, full, x.GetNumber()); err != nil || n == 0 {
			return true, err
		}
	}
	log.Info("PR conflicts with its base; queuing an update of the branch")
	repo, _, err := c.Repositories.Get(ctx, x.owner, x.name)
	if err != nil {
		return true, fmt.Errorf("get repo %s: %w", full, err)
	}
	_, err = l.Queue.EnqueueRun(ctx, jobs.RunPayload{Repo: full, RepoID: x.GetBase().GetRepo().GetID(), Installation: x.installation, Issue: x.issue,
		Mode: x.mode, CloneURL: repo.GetCloneURL(), DefaultBranch: repo.GetDefaultBranch(),
		Reason: jobs.ReasonFollowup, PR: x.GetNumber()})
	return true, err
}
