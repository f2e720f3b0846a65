package webhooks

import (
	"context"
	"strings"

	"github.com/warden-bot/warden/jobs"
)

func (r *Router) issues(ctx context.Context, d Delivery) (Decision, error) {
	var ev issuePayload
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	ic, valid := ev.context()
	if !valid {
		return Decision{}, errMissing("issues")
	}
	// GitHub attributes a close by a "Fixes #n" PR that Warden merged to
	// Warden: that close must still release the work waiting on the issue.
	if ev.Action != "closed" && r.fromBot(ctx, ic.sender) {
		return ignored("event from Warden itself"), nil
	}
	switch ev.Action {
	case "labeled":
		mode, ok := r.triggerMode(ev.Label.Name)
		if !ok {
			return ignored("label is not a trigger"), nil
		}
		return r.queueIssue(ctx, ic, mode, jobs.ReasonLabel, d.ID)
	case "unlabeled":
		if _, ok := r.triggerMode(ev.Label.Name); !ok {
			return ignored("label is not a trigger"), nil
		}
		return r.cancel(ctx, ic, "the trigger label was removed")
	case "closed":
		dec, err := r.cancel(ctx, ic, "the issue was closed")
		if err != nil {
			return dec, err
		}
		// Issues blocked on this one, and a decomposed parent, may now go on.
		if err := r.Queue.EnqueueClosed(ctx, jobs.ClosedPayload{Repo: ic.fullName(), RepoID: ic.repo.ID, Installation: ic.inst, Issue: ic.issue.Number,
			CloneURL: ic.repo.CloneURL, DefaultBranch: ic.repo.DefaultBranch}); err != nil {
			return Decision{}, unavailable("enqueue closed", err)
		}
		return queued("closed"), nil
	case "edited":
		return r.dashboardEdit(ctx, ev, ic, d.ID)
	}
	return ignored("action " + ev.Action + " is not handled"), nil
}

// triggerMode maps a trigger label to its mode.
func (r *Router) triggerMode(label string) (string, bool) {
	mode, ok := strings.CutPrefix(label, r.Prefix+":")
	if ok && (mode == "maintenance" || mode == "evolution") {
		return mode, true
	}
	return "", false
}

// issueMode is the mode of an issue's trigger labels; both at once is ambiguous.
func (r *Router) issueMode(issue *payloadIssue) (mode string, ambiguous bool) {
	for _, l := range issue.Labels {
		if m, ok := r.triggerMode(l.Name); ok {
			if mode != "" && mode != m {
				return "", true
			}
			mode = m
		}
	}
	return mode, false
}

func (r *Router) queueIssue(ctx context.Context, ic issueContext, mode, reason, delivery string) (Decision, error) {
	if ok, why := r.canWrite(ctx, ic.inst, ic.owner, ic.name, ic.sender); !ok {
		r.Log.Warn("trigger refused", "repo", ic.fullName(), "issue", ic.issue.Number, "user", ic.sender, "reason", why, "audit", true)
		return refused(why), nil
	}
	if m, ambiguous := r.issueMode(ic.issue); ambiguous || (m != "" && m != mode) {
		return r.reply(ctx, ic, "refused", "This issue carries both `"+r.Prefix+":maintenance` and `"+r.Prefix+":evolution`. Remove one of them and Warden will start.")
	}
	p := jobs.RunPayload{
		Repo: ic.fullName(), RepoID: ic.repo.ID, Installation: ic.inst, Issue: ic.issue.Number, IssueID: ic.issue.ID,
		Mode: mode, Title: ic.issue.Title, Body: ic.issue.Body,
		CloneURL: ic.repo.CloneURL, DefaultBranch: ic.repo.DefaultBranch,
		Sender: ic.sender, Delivery: delivery, Reason: reason,
	}
	if reason == jobs.ReasonRetry {
		p.RetryAt = ic.commentAt // hands back a held PR branch (followup.Continue)
	}
	res, err := r.Queue.EnqueueRun(ctx, p)
	if err != nil {
		return Decision{}, unavailable("enqueue run", err)
	}
	st := jobs.StatusPayload{Repo: p.Repo, Installation: p.Installation, Issue: p.Issue, Mode: mode, State: "queued"}
	if res == jobs.AlreadyQueued {
		st.Note = "Already queued or running: this request was merged into it."
	}
	if err := r.Queue.EnqueueStatus(ctx, st); err != nil {
		r.Log.Warn("status update not queued", "err", err, "repo", p.Repo, "issue", p.Issue)
	}
	if res == jobs.AlreadyQueued {
		return Decision{Code: 200, Status: "already_queued", Reason: "the issue already has a task queued or running"}, nil
	}
	return queued(mode), nil
}

func (r *Router) cancel(ctx context.Context, ic issueContext, why string) (Decision, error) {
	res, err := r.Queue.Cancel(ctx, ic.fullName(), ic.issue.Number)
	if err != nil {
		return Decision{}, unavailable("cancel", err)
	}
	switch res {
	case jobs.CanceledQueued:
		// Nobody runs it any more: show the cancel on the issue ourselves.
		mode, _ := r.issueMode(ic.issue)
		st := jobs.StatusPayload{Repo: ic.fullName(), Installation: ic.inst, Issue: ic.issue.Number, Mode: mode, State: "canceled", Note: why}
		if err := r.Queue.EnqueueStatus(ctx, st); err != nil {
			return Decision{}, unavailable("enqueue status", err)
		}
		return ok("queued task canceled"), nil
	case jobs.CancelRequested:
		return ok("running task asked to stop"), nil
	}
	return r.dropAwaiting(ctx, ic, why)
}

func (r *Router) reply(ctx context.Context, ic issueContext, status, text string) (Decision, error) {
	st := jobs.StatusPayload{Repo: ic.fullName(), Installation: ic.inst, Issue: ic.issue.Number, State: "reply", Note: text}
	if err := r.Queue.EnqueueStatus(ctx, st); err != nil {
		return Decision{}, unavailable("enqueue reply", err)
	}
	return Decision{Code: 200, Status: status, Reason: text}, nil
}
