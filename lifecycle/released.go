package lifecycle

import (
	"context"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

type prQueue interface {
	EnqueuePR(ctx context.Context, p jobs.PRPayload) error
}

// Released queues the first look at a maintenance PR an attempt opened or
// updated. It runs after the attempt wrote its final status comment (the
// pipeline's OnOutcome), so a PR that waits because no CI exists says so
// there: without CI no check event would ever come to say it.
func Released(ctx context.Context, q prQueue, t pipeline.Task, rec outcome.Record) error {
	if rec.Outcome != outcome.Completed || rec.PR == 0 || t.Mode != "maintenance" {
		return nil
	}
	return q.EnqueuePR(ctx, jobs.PRPayload{Repo: t.Repo, Installation: t.Installation, PR: rec.PR, Action: "released"})
}
