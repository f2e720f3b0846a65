package lifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/warden-bot/warden/jobs"
)

// #38 suspected: a lost PR lease stopped its renewal but not the
// evaluation, which could go on to the merge call while another worker
// held the PR. The evaluation's context now ends with the lease.
func TestLostLeaseStopsTheEvaluation(t *testing.T) {
	backend, q := testQueue(t)
	locks := jobs.NewLocks(backend.RDB, 300*time.Millisecond) // renewed every 100 ms
	l := &Lifecycle{Queue: q, Locks: locks, Log: quiet}
	p := jobs.PRPayload{Repo: "Codertocat/Lease-Lost", PR: 5}
	ended := make(chan error, 1)
	err := l.leased(context.Background(), p, 5, func(ctx context.Context) error {
		// Another worker's lease now: this one's next renewal finds it gone.
		if err := backend.RDB.Set(ctx, "warden:lock:"+LeaseKey(p.Repo, 5), "someone-else", time.Minute).Err(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			ended <- context.Cause(ctx)
		case <-time.After(10 * time.Second): // a bound on a hang, not a timed assertion
			ended <- nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cause := <-ended; cause == nil {
		t.Fatal("the evaluation went on after its PR lease was lost")
	}
}
