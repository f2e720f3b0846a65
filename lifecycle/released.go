package lifecycle

import (
	"context"
	"time"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

type prQueue interface {
	EnqueuePRAfter(ctx context.Context, p jobs.PRPayload, d time.Duration) error
}

// Released queues the first look at a maintenance PR an attempt opened or
// updated. It runs after the attempt wrote its final status comment (the
// pipeline's OnOutcome), so a PR that waits because no CI exists says so
// there: without CI no check event would ever come to say it. The look
// comes after grace, the time CI gets to register its checks; with CI,
// check events have re-evaluated the PR by then anyway.
func Released(ctx context.Context, q prQueue, t pipeline.Task, rec outcome.Record, grace time.Duration) error {
	if rec.Outcome != outcome.Completed || rec.PR == 0 || t.Mode != "maintenance" {
		return nil
	}
	return q.EnqueuePRAfter(ctx, jobs.PRPayload{Repo: t.Repo, Installation: t.Installation, PR: rec.PR, Action: "released"}, grace)
}
