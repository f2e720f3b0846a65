package lifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

type prRecorder struct {
	q     []jobs.PRPayload
	after []time.Duration
}

func (r *prRecorder) EnqueuePRAfter(_ context.Context, p jobs.PRPayload, d time.Duration) error {
	r.q, r.after = append(r.q, p), append(r.after, d)
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
		if err := Released(context.Background(), &q, pipeline.Task{Repo: gateRepo, Installation: 9, Mode: c.mode}, c.rec, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if len(q.q) != 1 || q.q[0].PR != 5 || q.q[0].Installation != 9 || q.q[0].Action != "released" {
		t.Fatalf("queued = %+v, want only the maintenance PR #5", q.q)
	}
	if q.after[0] != 2*time.Minute {
		t.Fatalf("looked again after %s, want the CI grace of 2m", q.after[0])
	}
}
