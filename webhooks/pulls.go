package webhooks

import (
	"context"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
)

// wardenBranch reports whether a head ref is one of Warden's branches.
func (r *Router) wardenBranch(ref string) bool { return strings.HasPrefix(ref, r.Prefix+"/") }

func (r *Router) enqueuePR(ctx context.Context, p jobs.PRPayload) (Decision, error) {
	if r.App == nil {
		return ignored("no GitHub App is configured"), nil
	}
	if p.Installation == 0 {
		return ignored("delivery has no installation"), nil
	}
	if err := r.Queue.EnqueuePR(ctx, p); err != nil {
		return Decision{}, unavailable("enqueue pr", err)
	}
	return queued("pr " + p.Action), nil
}

// pullRequest follows Warden's own PRs: a new push re-evaluates them, a close
// settles the issue. The PR must be authored by Warden: anyone can name a
// branch warden/… or paste a marker.
func (r *Router) pullRequest(ctx context.Context, d Delivery) (Decision, error) {
	var ev github.PullRequestEvent
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	pr := ev.GetPullRequest()
	if pr == nil || ev.GetRepo().GetFullName() == "" {
		return Decision{}, errMissing("pull_request")
	}
	if !r.wardenBranch(pr.GetHead().GetRef()) || !r.fromBot(ctx, pr.GetUser().GetLogin()) {
		return ignored("not a Warden pull request"), nil
	}
	p := jobs.PRPayload{Repo: ev.GetRepo().GetFullName(), Installation: ev.GetInstallation().GetID(), PR: pr.GetNumber(), SHA: pr.GetHead().GetSHA(), Sender: ev.GetSender().GetLogin()}
	if ev.GetAction() == "synchronize" && !r.fromBot(ctx, p.Sender) {
		if err := r.humanPush(ctx, p.Repo, p.Installation, p.PR, p.Sender, pr.GetUpdatedAt().Time); err != nil {
			return Decision{}, err
		}
	}
	switch ev.GetAction() {
	case "synchronize", "reopened":
		p.Action = "sync"
	case "closed":
		p.Action, p.Merged = "closed", pr.GetMerged()
	default:
		return ignored("action " + ev.GetAction() + " is not handled"), nil
	}
	return r.enqueuePR(ctx, p)
}

// review re-evaluates an evolution PR's approval on every submitted or
// dismissed review; the worker reads the reviews and permissions from the API.
func (r *Router) review(ctx context.Context, d Delivery) (Decision, error) {
	var ev github.PullRequestReviewEvent
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	pr := ev.GetPullRequest()
	if pr == nil || ev.GetRepo().GetFullName() == "" {
		return Decision{}, errMissing("pull_request_review")
	}
	if a := ev.GetAction(); a != "submitted" && a != "dismissed" {
		return ignored("action " + a + " is not handled"), nil
	}
	if !r.wardenBranch(pr.GetHead().GetRef()) {
		return ignored("not a Warden pull request"), nil
	}
	if dec, isFeedback, err := r.reviewFeedback(ctx, &ev, d.ID); err != nil || isFeedback && !evolution(r.Prefix, pr.GetBody()) {
		return dec, err // only an evolution PR's approval needs re-evaluating after a review
	}
	return r.enqueuePR(ctx, jobs.PRPayload{Repo: ev.GetRepo().GetFullName(), Installation: ev.GetInstallation().GetID(),
		PR: pr.GetNumber(), SHA: pr.GetHead().GetSHA(), Action: "review", Sender: ev.GetSender().GetLogin()})
}

// checks re-evaluates the Warden PRs of a finished check suite or run.
func (r *Router) checks(ctx context.Context, d Delivery) (Decision, error) {
	var ev struct {
		Action string `json:"action"`
		// check_suite carries pull_requests at the top of the suite; check_run in the run.
		CheckSuite *struct {
			HeadSHA      string                `json:"head_sha"`
			PullRequests []*github.PullRequest `json:"pull_requests"`
			App          *github.App           `json:"app"`
		} `json:"check_suite"`
		CheckRun *struct {
			HeadSHA      string                `json:"head_sha"`
			PullRequests []*github.PullRequest `json:"pull_requests"`
			App          *github.App           `json:"app"`
		} `json:"check_run"`
		Repo         *github.Repository   `json:"repository"`
		Installation *github.Installation `json:"installation"`
	}
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	if ev.Action != "completed" {
		return ignored("only completed checks matter"), nil
	}
	sha, prs, app := "", []*github.PullRequest(nil), (*github.App)(nil)
	if d.Event == "check_run" && ev.CheckRun != nil {
		sha, prs, app = ev.CheckRun.HeadSHA, ev.CheckRun.PullRequests, ev.CheckRun.App
	} else if ev.CheckSuite != nil {
		sha, prs, app = ev.CheckSuite.HeadSHA, ev.CheckSuite.PullRequests, ev.CheckSuite.App
	}
	// Warden's own `Warden` check run (a transcript) is not CI: evaluating
	// the PR for it would spend calls and change nothing.
	if app.GetSlug() != "" && r.fromBot(ctx, app.GetSlug()+"[bot]") {
		return ignored("Warden's own check run"), nil
	}
	last := ignored("no Warden pull request")
	for _, pr := range prs {
		if !r.wardenBranch(pr.GetHead().GetRef()) {
			continue
		}
		dec, err := r.enqueuePR(ctx, jobs.PRPayload{Repo: ev.Repo.GetFullName(), Installation: ev.Installation.GetID(), PR: pr.GetNumber(), SHA: sha, Action: "checks"})
		if err != nil {
			return Decision{}, err
		}
		last = dec
	}
	return last, nil
}

// status re-evaluates PRs whose head got a commit status. Warden's own
// statuses are ignored (they would loop); someone else's warden/mode is
// answered by the worker, which overwrites it.
func (r *Router) status(ctx context.Context, d Delivery) (Decision, error) {
	var ev github.StatusEvent
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	if r.fromBot(ctx, ev.GetSender().GetLogin()) {
		return ignored("status from Warden itself"), nil
	}
	onWarden := false
	for _, b := range ev.Branches {
		onWarden = onWarden || r.wardenBranch(b.GetName())
	}
	if !onWarden || ev.GetState() == "pending" {
		return ignored("not a settled status on a Warden branch"), nil
	}
	return r.enqueuePR(ctx, jobs.PRPayload{Repo: ev.GetRepo().GetFullName(), Installation: ev.GetInstallation().GetID(),
		SHA: ev.GetSHA(), Action: "status", Sender: ev.GetSender().GetLogin()})
}
