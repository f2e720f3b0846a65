package webhooks

import (
	"context"

	"github.com/warden-bot/warden/comments/dashboard"
	"github.com/warden-bot/warden/jobs"
)

type dashboardQueue interface {
	EnqueueDashboard(ctx context.Context, p jobs.DashboardPayload) error
}

// dashboardEdit answers an edit of Warden's dashboard issue (package
// dashboard): the retry boxes a writer ticked are `/warden retry` on their
// issues; whatever anyone did, the dashboard is written again, so a
// non-writer's tick is undone and changes nothing else. Warden's own edits
// never come here (the issues route drops them first).
func (r *Router) dashboardEdit(ctx context.Context, ev issuePayload, ic issueContext, delivery string) (Decision, error) {
	if r.Dashboard == nil || ic.issue.isPullRequest() || !dashboard.IsDashboard(ic.issue.Title, ic.issue.Body) ||
		!r.fromBot(ctx, ic.issue.User.Login) {
		return ignored("not Warden's dashboard"), nil
	}
	p := jobs.DashboardPayload{Repo: ic.fullName(), RepoID: ic.repo.ID, Installation: ic.inst, CloneURL: ic.repo.CloneURL,
		DefaultBranch: ic.repo.DefaultBranch, Sender: ic.sender, Rewrite: true}
	if ok, why := r.canWrite(ctx, ic.inst, ic.owner, ic.name, ic.sender); !ok {
		r.Log.Warn("dashboard edit by a non-writer written over", "repo", p.Repo, "issue", ic.issue.Number, "user", ic.sender, "reason", why, "audit", true)
	} else if ev.Changes.Body != nil {
		p.Retry = dashboard.Ticked(ev.Changes.Body.From, ic.issue.Body)
	}
	if err := r.Dashboard.EnqueueDashboard(jobs.WithDelivery(ctx, delivery), p); err != nil {
		return Decision{}, unavailable("enqueue dashboard", err)
	}
	if len(p.Retry) > 0 {
		return queued("dashboard retry"), nil
	}
	return queued("dashboard rewrite"), nil
}
