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

// The released PR's look is for a head no check event ever comes for. Once
// a completed check's evaluation of the head ran (one run done, another
// still going: the PR waits, and says so), the look reads the PR and
// nothing else; a look at a head no check event was evaluated for reads
// everything and says why the PR waits.
func TestReleasedLookSkippedOnceCIReported(t *testing.T) {
	g := newGateGH(t)
	g.run("lint", "completed", "success")
	g.run("test", "in_progress", "")
	l := g.lifecycle()
	released := jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: 3, Action: "released"}
	if err := l.PR(context.Background(), released); err != nil {
		t.Fatal(err)
	}
	if n := len(g.paths); n < 3 || g.gql.queries != 1 { // the PR, the head query, the note
		t.Fatalf("the look before any check event made %d calls (%d head queries): %q", n, g.gql.queries, g.paths)
	}
	g.evaluate(t, l) // a check event's evaluation
	before := len(g.paths)
	if err := l.PR(context.Background(), released); err != nil {
		t.Fatal(err)
	}
	if got := g.paths[before:]; len(got) != 1 || got[0] != "GET /pulls/3" || g.gql.queries != 2 {
		t.Fatalf("the look after a check event's evaluation called %q, want only the PR read", got)
	}
}
