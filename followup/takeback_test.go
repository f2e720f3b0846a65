package followup

import (
	"context"
	"testing"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

// Found by the interleaving test's 10,000-seed soak (seeds 3624, 7651): a
// PR Warden had put in the merge queue (or under auto-merge) stayed there
// while a follow-up answered new feedback, and GitHub merged it without
// the change. The follow-up now queues an evaluation before its attempt,
// which finds the feedback pending and takes the PR back; a PR not bound
// costs no evaluation.
func TestFollowupTakesABoundPRBackBeforeItsAttempt(t *testing.T) {
	for _, bound := range []bool{true, false} {
		w, ctx := newPRWorld(t), context.Background()
		if _, err := w.store.Add(ctx, crashRepo, w.pr, Item{Kind: KindComment, ID: 52, Author: "alice", Body: "rename it"}); err != nil {
			t.Fatal(err)
		}
		var evals []jobs.PRPayload
		atAttempt := -1
		r := w.runner(func(context.Context, pipeline.Host, pipeline.Task) pipeline.Result {
			atAttempt = len(evals)
			return pipeline.Result{Record: outcome.Record{Outcome: outcome.Completed}}
		})
		r.Reevaluate = func(_ context.Context, p jobs.PRPayload) error { evals = append(evals, p); return nil }
		r.Bound = func(_ context.Context, repo string, issue, pr int) (bool, error) {
			return bound && repo == crashRepo && issue == 3 && pr == w.pr, nil
		}
		r.Run(ctx, w.host, pipeline.Task{Repo: crashRepo, Issue: 3}, w.payload())
		want := 0
		if bound {
			want = 1
		}
		if atAttempt != want || (bound && (evals[0].Action != "sync" || evals[0].PR != w.pr)) {
			t.Fatalf("bound=%v: %d evaluation(s) queued before the attempt (%+v), want %d", bound, atAttempt, evals, want)
		}
	}
}
