package lifecycle

import (
	"context"
	"time"

	"github.com/warden-bot/warden/jobs"
)

// The interleaving test's lost PR lease (#38): in the middle of an
// evaluation the lease's key is gone (a Redis restart without
// persistence, a GC pause longer than its TTL), and another evaluation
// takes the PR and runs to completion. The first one must stop: going on,
// it would call merge on a head the other already merged.

// simLeaseTTL is the sim's PR lease TTL: short, so that the lease's
// renewal finds it gone while the hook waits (every simLeaseTTL/3).
const simLeaseTTL = 300 * time.Millisecond

// loseLease arms the hook: at maybeMerge's bot login read, the lease is
// deleted and a second evaluation runs; then the hook waits for the first
// evaluation's context to end (bounded: a mutant never ends it).
func (s *sim) loseLease(i int) {
	s.app.skip = 1
	s.app.hook = func(ctx context.Context) {
		s.note("%d  the PR's lease expires mid-evaluation; another evaluation takes the PR", i)
		s.count("lease lost mid-evaluation")
		s.be.RDB.Del(context.Background(), "warden:lock:"+LeaseKey(repo, s.pr))
		err := s.life.PR(context.Background(), jobs.PRPayload{Repo: repo, Installation: inst, PR: s.pr, Action: "checks"})
		s.note("%d  the other evaluation: err=%v merged=%v", i, err, s.pull().Merged)
		if s.pull().Merged {
			s.x.leaseMerges = s.gh.MergeCalls(repo, s.pr)
		}
		select {
		case <-ctx.Done():
		case <-time.After(3 * simLeaseTTL):
		}
	}
}
