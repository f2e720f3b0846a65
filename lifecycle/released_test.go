package lifecycle

import (
	"context"
	"testing"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

type prRecorder []jobs.PRPayload

func (r *prRecorder) EnqueuePR(_ context.Context, p jobs.PRPayload) error {
	*r = append(*r, p)
	return nil
}

// A released maintenance PR is judged once the attempt is over, so a
// repository without CI (no check event, ever) still learns why it waits.
func TestReleasedMaintenancePRIsEvaluated(t *testing.T) {
	var q prRecorder
	done := outcome.Record{Outcome: outcome.Completed, PR: 5}
	for _, c := range []struct {
		mode string
		rec  outcome.Record
	}{{"maintenance", done}, {"evolution", done}, {"maintenance", outcome.Record{Outcome: outcome.Escalated}}} {
		if err := Released(context.Background(), &q, pipeline.Task{Repo: gateRepo, Installation: 9, Mode: c.mode}, c.rec); err != nil {
			t.Fatal(err)
		}
	}
	if len(q) != 1 || q[0].PR != 5 || q[0].Installation != 9 || q[0].Action != "released" {
		t.Fatalf("queued = %+v, want only the maintenance PR #5", q)
	}
}
