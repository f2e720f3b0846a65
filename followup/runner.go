package followup

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

// Runner turns pending feedback on a Warden PR into one follow-up attempt.
type Runner struct {
	Store   *Store
	Attempt func(ctx context.Context, host pipeline.Host, t pipeline.Task) pipeline.Result
	// Next queues the following follow-up when feedback arrived meanwhile.
	Next func(ctx context.Context, p jobs.RunPayload) error
	// Reevaluate queues a PR evaluation the follow-up held back; may be nil.
	Reevaluate func(ctx context.Context, p jobs.PRPayload) error
	// Lease takes the PR's lease around the push (see lifecycle's lease):
	// no merge evaluation runs between the push and its record; may be nil.
	Lease func(ctx context.Context, repo string, pr int) (release func(), err error)
	// Bound reports that Warden left the PR to GitHub's own merging (the
	// merge queue, auto-merge); may be nil. See takeBack.
	Bound  func(ctx context.Context, repo string, issue, pr int) (bool, error)
	Prefix string
	Log    *slog.Logger
}

// finish runs the merge evaluation that was skipped while the follow-up
// ran (a green check or a push meanwhile); the note is cleared only once it
// is queued. It is queued as a push's ("sync"): the skipped one may have
// been, and a sync evaluation does all a check's does and also re-asserts
// a maintenance PR's warden/mode on the head.
func (r *Runner) finish(ctx context.Context, p jobs.RunPayload) {
	bg := context.WithoutCancel(ctx)
	if r.Reevaluate == nil || !r.Store.SkippedEval(bg, p.Repo, p.PR) {
		return
	}
	if err := r.Reevaluate(bg, jobs.PRPayload{Repo: p.Repo, Installation: p.Installation, PR: p.PR, Action: "sync"}); err != nil {
		r.Log.Warn("held-back PR evaluation not queued", "repo", p.Repo, "pr", p.PR, "err", err)
		return
	}
	_ = r.Store.ClearSkipped(bg, p.Repo, p.PR)
}

// quiet is the result of a follow-up that had nothing to do.
func quiet(why string) pipeline.Result {
	return pipeline.Result{Record: outcome.Record{Outcome: outcome.Completed, Summary: why}}
}

func transient(summary string) pipeline.Result {
	return pipeline.Result{Record: outcome.Record{Outcome: outcome.Retryable, FailureClass: outcome.Transient, Summary: summary}}
}

// Run re-reads the PR, takes its pending feedback in flight and runs the
// attempt on the PR's branch; then answers each inline thread, and only
// then marks the feedback answered. A task recovered after a kill finds
// the feedback in flight and finishes what the killed one left undone.
func (r *Runner) Run(ctx context.Context, host *pipeline.GitHubHost, t pipeline.Task, p jobs.RunPayload) pipeline.Result {
	log := r.Log.With("repo", p.Repo, "issue", p.Issue, "pr", p.PR)
	if n, err := r.Store.Pending(ctx, p.Repo, p.PR); err == nil && n == 0 {
		return quiet("no pending feedback") // a sweep or a late copy: no API call
	}
	c := host.Client
	pr, _, err := c.PullRequests.Get(ctx, host.Owner, host.Name, p.PR)
	if err != nil {
		return transient(fmt.Sprintf("get PR #%d: %v", p.PR, err))
	}
	if pr.GetState() != "open" || pr.GetUser().GetLogin() != host.BotLogin || !strings.HasPrefix(pr.GetHead().GetRef(), r.Prefix+"/") {
		_ = r.Store.Forget(ctx, p.Repo, p.PR)
		return quiet("not an open Warden pull request")
	}
	if by, err := r.Store.Held(ctx, p.Repo, p.PR); err != nil || by != "" {
		return quiet("the branch is held after a push by someone else") // feedback stays pending
	}
	defer r.finish(ctx, p)
	if err := r.takeBack(ctx, p, p.PR); err != nil { // the next evaluation (a check event, the push) takes it back
		log.Warn("PR left in GitHub's merging while its feedback is answered", "err", err)
	}
	tk, err := r.Store.Take(ctx, p.Repo, p.PR)
	if err != nil {
		return transient(err.Error())
	}
	bg := context.WithoutCancel(ctx)
	if tk.Pushed != "" { // a killed try pushed already: answer, do not commit again
		return r.recoverPushed(bg, host, p, tk, log) // recovered.go
	}
	items := r.expand(ctx, c, host, p, tk.Items, log)
	if len(items) == 0 {
		_ = r.Store.Finish(bg, p.Repo, p.PR, tk.Items)
		return quiet("no pending feedback")
	}
	n, err := r.count(ctx, p, tk)
	if err != nil {
		_ = r.Store.Requeue(bg, p.Repo, p.PR)
		return transient(err.Error())
	}
	log.Info("follow-up starting", "items", len(items), "followup", n, "head", pr.GetHead().GetSHA())
	words, conflict := splitConflict(items)
	email, err := host.CommitEmail(ctx)
	if err != nil {
		_ = r.Store.Requeue(bg, p.Repo, p.PR)
		return transient(err.Error())
	}
	t.Followup = &pipeline.Followup{PR: p.PR, Branch: pr.GetHead().GetRef(), HeadSHA: pr.GetHead().GetSHA(),
		Feedback: Render(words), Paths: paths(items), Count: int(n), Conflict: conflict,
		Author: host.BotLogin, Email: email}
	fh := &pipeline.FollowupHost{GitHubHost: host, PR: p.PR, Expect: pr.GetHead().GetSHA(),
		Message: fmt.Sprintf("Follow-up %d on #%d: %s", n, p.PR, Summary(items)),
		Note:    note(n, items),
		OnPush:  func(ctx context.Context, sha string) error { return r.Store.NotePushed(ctx, p.Repo, p.PR, sha) },
		Lease:   r.prLease(p)}
	res := r.Attempt(ctx, fh, t)
	if o := res.Record.Outcome; (o == outcome.Deferred || o == outcome.Retryable) && fh.Pushed == "" {
		// Tried again later: the feedback waits, and this try does not count.
		if err := r.Store.Requeue(bg, p.Repo, p.PR); err != nil {
			log.Error("feedback of a deferred follow-up not kept", "err", err)
		}
		_ = r.Store.Unuse(bg, p.Repo, p.PR)
		return res
	}
	if res.Record.Outcome == outcome.Completed && fh.Pushed != "" {
		r.reply(bg, c, host, p, items, fh.Pushed, nil, log)
	} else if err := r.Store.Finish(bg, p.Repo, p.PR, items); err != nil {
		log.Error("answered feedback not marked", "err", err) // the outcome comment answered it
	}
	r.next(bg, p, log)
	return res
}

// takeBack queues an evaluation when PR pr sits in the merge queue or
// under auto-merge: GitHub would merge it while this run (a follow-up, an
// issue run continuing it) changes the head (only a push would drop it
// from the queue). The evaluation finds the PR busy or its feedback
// pending and takes it back (lifecycle's unbind). Only then: an
// evaluation per run would cost every run its calls.
func (r *Runner) takeBack(ctx context.Context, p jobs.RunPayload, pr int) error {
	if r.Bound == nil || r.Reevaluate == nil {
		return nil
	}
	on, err := r.Bound(ctx, p.Repo, p.Issue, pr)
	if err != nil || !on {
		return err
	}
	return r.Reevaluate(ctx, jobs.PRPayload{Repo: p.Repo, Installation: p.Installation, PR: pr, Action: "sync"})
}

// prLease is the host's lease around the push, or nil without one.
func (r *Runner) prLease(p jobs.RunPayload) func(context.Context) (func(), error) {
	if r.Lease == nil {
		return nil
	}
	return func(ctx context.Context) (func(), error) { return r.Lease(ctx, p.Repo, p.PR) }
}

// count numbers the follow-up once, even across a recovery.
func (r *Runner) count(ctx context.Context, p jobs.RunPayload, tk Taken) (int64, error) {
	if tk.Count > 0 {
		return tk.Count, nil
	}
	n, err := r.Store.Used(ctx, p.Repo, p.PR)
	if err != nil {
		return 0, err
	}
	return n, r.Store.note(ctx, p.Repo, p.PR, metaCount, fmt.Sprint(n))
}

// expand adds the inline comments of each review in items, read from the
// API: GitHub sends them as separate deliveries that may come after the
// review's own, and one review must make one commit.
func (r *Runner) expand(ctx context.Context, c *github.Client, host *pipeline.GitHubHost, p jobs.RunPayload, items []Item, log *slog.Logger) []Item {
	seen := map[string]bool{}
	for _, it := range items {
		seen[it.Key()] = true
	}
	out := items
	for _, it := range items {
		if it.Kind != KindReview || it.ID == 0 {
			continue
		}
		cs, _, err := c.PullRequests.ListReviewComments(ctx, host.Owner, host.Name, p.PR, it.ID, &github.ListOptions{PerPage: 100})
		if err != nil {
			log.Warn("review comments not read; their own deliveries still count", "review", it.ID, "err", err)
			continue
		}
		var got []Item
		for _, rc := range cs {
			in := InlineItem(rc, it.Author)
			if !seen[in.Key()] {
				seen[in.Key()] = true
				got = append(got, in)
			}
		}
		if err := r.Store.Adopt(ctx, p.Repo, p.PR, got...); err != nil {
			log.Warn("review comments not taken in flight", "err", err)
		}
		out = append(out, got...)
	}
	// A review with no words of its own says nothing its comments do not.
	return dropEmptyReviews(out)
}

func dropEmptyReviews(items []Item) []Item {
	out := items[:0]
	for _, it := range items {
		if it.Kind == KindReview && strings.TrimSpace(it.Body) == "" {
			continue
		}
		out = append(out, it)
	}
	return out
}

// InlineItem is a review comment as feedback.
func InlineItem(rc *github.PullRequestComment, author string) Item {
	if l := rc.GetUser().GetLogin(); l != "" {
		author = l
	}
	line := rc.GetLine()
	if line == 0 {
		line = rc.GetOriginalLine()
	}
	return Item{Kind: KindInline, ID: rc.GetID(), ReviewID: rc.GetPullRequestReviewID(), Author: author,
		Body: rc.GetBody(), Path: rc.GetPath(), Line: line, DiffHunk: rc.GetDiffHunk(), CommitID: rc.GetCommitID()}
}

func paths(items []Item) []string {
	var out []string
	for _, it := range items {
		if it.Path != "" && !slices.Contains(out, it.Path) {
			out = append(out, it.Path)
		}
	}
	return out
}

// After runs when any attempt at the issue ended: feedback on its PR that
// arrived while it ran (and found the issue's task taken) gets its follow-up.
func (r *Runner) After(ctx context.Context, p jobs.RunPayload, pr int) {
	if pr == 0 {
		return
	}
	if err := r.Store.SetIssuePR(ctx, p.Repo, p.Issue, pr); err != nil {
		r.Log.Warn("PR of the issue not remembered", "repo", p.Repo, "issue", p.Issue, "pr", pr, "err", err)
	}
	p.PR = pr
	r.next(ctx, p, r.Log.With("repo", p.Repo, "issue", p.Issue, "pr", pr))
}

// next queues another follow-up when feedback is still pending.
func (r *Runner) next(ctx context.Context, p jobs.RunPayload, log *slog.Logger) {
	n, err := r.Store.Pending(ctx, p.Repo, p.PR)
	if err != nil || n == 0 {
		return
	}
	if err := r.Next(ctx, p); err != nil {
		log.Error("next follow-up not queued; the feedback waits for the next event", "err", err)
	}
}

// splitConflict separates a conflict report (the worktree finds the hunks
// itself) from the feedback to quote.
func splitConflict(items []Item) ([]Item, bool) {
	var out []Item
	conflict := false
	for _, it := range items {
		if it.Kind == KindConflict {
			conflict = true
			continue
		}
		out = append(out, it)
	}
	return out, conflict
}
