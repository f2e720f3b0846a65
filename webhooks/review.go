package webhooks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/jobs"
)

// feedbackStore keeps maintainers' feedback on Warden's PRs for follow-ups.
type feedbackStore interface {
	Add(ctx context.Context, repo string, pr int, it followup.Item) (bool, error)
	HoldSince(ctx context.Context, repo string, pr int, by string, at time.Time) (bool, error)
	Held(ctx context.Context, repo string, pr int) (string, error)
	ReleaseIfBefore(ctx context.Context, repo string, installation int64, pr int, asOf time.Time) (bool, error)
	HandBackOwed(ctx context.Context, repo string, pr int) (bool, error)
	HandedBack(ctx context.Context, repo string, pr int) error
	Pending(ctx context.Context, repo string, pr int) (int64, error)
}

type sweeper interface {
	EnqueueSweep(ctx context.Context, p jobs.RunPayload) error
}

// ownPR is a PR as a delivery shows it, once known to be Warden's own.
type ownPR struct {
	repo          string
	repoID        int64
	inst          int64
	number, issue int
	mode          string
	cloneURL      string
	defaultBranch string
}

// ownPR checks that the App opened the PR (author and marker); anything
// else is not Warden's to follow up on.
func (r *Router) ownPR(ctx context.Context, repo *github.Repository, inst int64, number int, author, body string) (ownPR, bool) {
	if r.Followups == nil || r.App == nil || inst == 0 || !r.fromBot(ctx, author) {
		return ownPR{}, false
	}
	issue, mode, ok := followup.Marker(r.Prefix, body)
	if !ok {
		return ownPR{}, false
	}
	return ownPR{repo: repo.GetFullName(), repoID: repo.GetID(), inst: inst, number: number, issue: issue, mode: mode,
		cloneURL: repo.GetCloneURL(), defaultBranch: repo.GetDefaultBranch()}, true
}

// writer is the permission gate for feedback: a non-writer's words are
// neither instructions nor context, so they are dropped without a reply.
func (r *Router) writer(ctx context.Context, pr ownPR, sender string) bool {
	if r.fromBot(ctx, sender) {
		return false
	}
	owner, name, _ := strings.Cut(pr.repo, "/")
	ok, why := r.canWrite(ctx, pr.inst, owner, name, sender)
	if !ok {
		r.Log.Info("feedback from a non-writer ignored", "repo", pr.repo, "pr", pr.number, "user", sender, "reason", why, "audit", true)
	}
	return ok
}

// feedback stores an item and queues a follow-up. One already queued or
// running takes it along (the store is read when the follow-up starts, and
// whatever arrives later queues the next one).
func (r *Router) feedback(ctx context.Context, pr ownPR, it followup.Item, sender, delivery string) (Decision, error) {
	added, err := r.Followups.Add(ctx, pr.repo, pr.number, it)
	if err != nil {
		return Decision{}, unavailable("store feedback", err)
	}
	if !added {
		// Already pending (or in flight) is not the same as queued: the
		// first delivery may have stored it and failed to enqueue. Queueing
		// is idempotent, so a redelivery completes what the first left undone.
		n, err := r.Followups.Pending(ctx, pr.repo, pr.number)
		if err != nil {
			return Decision{}, unavailable("read pending feedback", err)
		}
		if n == 0 {
			return ok("feedback already answered"), nil
		}
	}
	return r.queueFollowup(ctx, pr, sender, delivery)
}

func (r *Router) queueFollowup(ctx context.Context, pr ownPR, sender, delivery string) (Decision, error) {
	p := jobs.RunPayload{Repo: pr.repo, RepoID: pr.repoID, Installation: pr.inst, Issue: pr.issue, Mode: pr.mode,
		CloneURL: pr.cloneURL, DefaultBranch: pr.defaultBranch, Sender: sender, Delivery: delivery,
		Reason: jobs.ReasonFollowup, PR: pr.number}
	res, err := r.Queue.EnqueueRun(ctx, p)
	if err != nil {
		return Decision{}, unavailable("enqueue follow-up", err)
	}
	if res == jobs.AlreadyQueued {
		// The running task may be past its last look at the store.
		if s, ok := r.Queue.(sweeper); ok {
			if err := s.EnqueueSweep(ctx, p); err != nil {
				return Decision{}, unavailable("enqueue follow-up sweep", err)
			}
		}
		return Decision{Code: 200, Status: "already_queued", Reason: "batched into the follow-up already queued or running"}, nil
	}
	return queued("follow-up"), nil
}

// reviewFeedback turns a submitted review that asks for changes or
// comments into feedback; its inline comments are read with it.
func (r *Router) reviewFeedback(ctx context.Context, ev *github.PullRequestReviewEvent, delivery string) (Decision, bool, error) {
	rv, pr := ev.GetReview(), ev.GetPullRequest()
	state := strings.ToLower(rv.GetState())
	if ev.GetAction() != "submitted" || (state != "changes_requested" && state != "commented") {
		return Decision{}, false, nil
	}
	own, ok := r.ownPR(ctx, ev.GetRepo(), ev.GetInstallation().GetID(), pr.GetNumber(), pr.GetUser().GetLogin(), pr.GetBody())
	sender := ev.GetSender().GetLogin()
	if !ok || !r.writer(ctx, own, sender) {
		return Decision{}, false, nil
	}
	it := followup.Item{Kind: followup.KindReview, ID: rv.GetID(), Author: sender, Body: rv.GetBody()}
	dec, err := r.feedback(ctx, own, it, sender, delivery)
	return dec, true, err
}

// reviewComment turns an inline review comment into feedback.
func (r *Router) reviewComment(ctx context.Context, d Delivery) (Decision, error) {
	var ev github.PullRequestReviewCommentEvent
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	pr, c := ev.GetPullRequest(), ev.GetComment()
	if pr == nil || c == nil || ev.GetRepo().GetFullName() == "" {
		return Decision{}, errMissing("pull_request_review_comment")
	}
	if ev.GetAction() != "created" {
		return ignored("only new review comments are feedback"), nil
	}
	own, ok := r.ownPR(ctx, ev.GetRepo(), ev.GetInstallation().GetID(), pr.GetNumber(), pr.GetUser().GetLogin(), pr.GetBody())
	sender := ev.GetSender().GetLogin()
	if !ok || !r.writer(ctx, own, sender) {
		return ignored("not feedback from a writer on a Warden pull request"), nil
	}
	return r.feedback(ctx, own, followup.InlineItem(c, sender), sender, d.ID)
}

// prComment handles a conversation comment on a PR: a mention of the App
// or `/<prefix> fix <text>` is feedback; `/<prefix> retry` lifts a hold.
func (r *Router) prComment(ctx context.Context, d Delivery) (Decision, error) {
	var ev github.IssueCommentEvent
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	is, c := ev.GetIssue(), ev.GetComment()
	own, ok := r.ownPR(ctx, ev.GetRepo(), ev.GetInstallation().GetID(), is.GetNumber(), is.GetUser().GetLogin(), is.GetBody())
	sender := ev.GetSender().GetLogin()
	if !ok || r.fromBot(ctx, sender) {
		return ignored("not a comment on a Warden pull request"), nil
	}
	retry := false
	for _, cmd := range Commands(r.Prefix, c.GetBody()) {
		retry = retry || cmd == "retry"
	}
	login, _ := r.App.BotLogin(ctx)
	text, asked := followup.Instruction(r.Prefix, followup.Slug(login), c.GetBody())
	if !retry && !asked {
		return ignored("no mention, fix request or retry"), nil
	}
	if !r.writer(ctx, own, sender) {
		return ignored("not a writer"), nil
	}
	if retry {
		if asked { // `/warden fix …` in the same comment is kept, answered once the branch is back
			if _, err := r.Followups.Add(ctx, own.repo, own.number, followup.Item{Kind: followup.KindComment, ID: c.GetID(), Author: sender, Body: text}); err != nil {
				return Decision{}, unavailable("store feedback", err)
			}
		}
		return r.resumeBranch(ctx, own, sender, d.ID, c.GetCreatedAt().Time)
	}
	return r.feedback(ctx, own, followup.Item{Kind: followup.KindComment, ID: c.GetID(), Author: sender, Body: text}, sender, d.ID)
}

// resumeBranch lifts a hold after a writer's `/<prefix> retry` on the PR and
// answers the feedback that waited, or re-evaluates the PR. The release
// records the hand-back as owed in the same step; it is settled only once
// its work is queued, so a redelivery after a failed enqueue finishes it.
func (r *Router) resumeBranch(ctx context.Context, pr ownPR, sender, delivery string, written time.Time) (Decision, error) {
	by, err := r.Followups.Held(ctx, pr.repo, pr.number)
	if err != nil {
		return Decision{}, unavailable("read hold", err)
	}
	if by == "" {
		owed, err := r.Followups.HandBackOwed(ctx, pr.repo, pr.number)
		if err != nil {
			return Decision{}, unavailable("read hand-back", err)
		}
		if owed { // released by an earlier delivery that died before queueing
			return r.handBack(ctx, pr, sender, delivery)
		}
		// A redelivery after the release: what the first delivery left
		// undone (the follow-up of waiting feedback) is queued now.
		if n, err := r.Followups.Pending(ctx, pr.repo, pr.number); err == nil && n > 0 {
			return r.queueFollowup(ctx, pr, sender, delivery)
		}
		return ignored("the branch is not held"), nil
	}
	released, err := r.Followups.ReleaseIfBefore(ctx, pr.repo, pr.inst, pr.number, written)
	if err != nil {
		return Decision{}, unavailable("release hold", err)
	}
	if !released { // a late copy of an older retry: the newer push keeps the branch
		r.Log.Info("retry written before the latest push; the branch stays held", "repo", pr.repo, "pr", pr.number, "user", sender, "held_by", by)
		return ok("retry predates the latest push"), nil
	}
	return r.handBack(ctx, pr, sender, delivery)
}

// handBack queues what a released hold owes: the reply, then the follow-up
// of waiting feedback or the PR's evaluation; then settles the debt.
func (r *Router) handBack(ctx context.Context, pr ownPR, sender, delivery string) (Decision, error) {
	note := jobs.StatusPayload{Repo: pr.repo, Installation: pr.inst, Issue: pr.number, State: "reply",
		Note: fmt.Sprintf("@%s Warden takes this branch back: follow-ups, CI fixes, conflict updates and auto-merge resume.", sender)}
	if err := r.Queue.EnqueueStatus(ctx, note); err != nil {
		return Decision{}, unavailable("enqueue reply", err)
	}
	var dec Decision
	var err error
	if n, perr := r.Followups.Pending(ctx, pr.repo, pr.number); perr == nil && n > 0 {
		dec, err = r.queueFollowup(ctx, pr, sender, delivery)
	} else {
		dec, err = r.enqueuePR(ctx, jobs.PRPayload{Repo: pr.repo, Installation: pr.inst, PR: pr.number, Action: "checks", Sender: sender})
	}
	if err != nil {
		return Decision{}, err
	}
	if err := r.Followups.HandedBack(ctx, pr.repo, pr.number); err != nil {
		// Still owed: a later retry queues it again (queueing is idempotent).
		r.Log.Warn("hand-back queued but not settled", "repo", pr.repo, "pr", pr.number, "err", err)
	}
	return dec, nil
}

// humanPush holds the branch after a push by anyone but Warden and says so
// once on the PR.
func (r *Router) humanPush(ctx context.Context, repo string, inst int64, number int, sender string, at time.Time) error {
	if r.Followups == nil {
		return nil
	}
	fresh, err := r.Followups.HoldSince(ctx, repo, number, sender, at)
	if err != nil {
		return unavailable("hold branch", err)
	}
	if !fresh {
		return nil
	}
	note := jobs.StatusPayload{Repo: repo, Installation: inst, Issue: number, State: "reply",
		Note: fmt.Sprintf("@%s pushed to this branch, so Warden stops changing it: no follow-ups, no CI fixes, no conflict updates, no auto-merge. A user with write access can comment `/%s retry` here to hand it back.", sender, r.Prefix)}
	if err := r.Queue.EnqueueStatus(ctx, note); err != nil {
		return unavailable("enqueue hold notice", err)
	}
	return nil
}

func evolution(prefix, body string) bool {
	_, mode, _ := followup.Marker(prefix, body)
	return mode == "evolution"
}
