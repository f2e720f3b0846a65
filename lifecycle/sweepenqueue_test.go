package lifecycle

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/jobs"
)

// Found by the interleaving test (#38): an enqueue GitHub answered without
// an entry stays unconfirmed, and once the PR's head moved no evaluation
// could confirm it (each enqueues the current head): the sweeper
// re-evaluated the PR for as long as the journal kept the intent; the same
// for a take-back of auto-merge that failed before GitHub merged the PR.
// It now re-reads the PR and drops an enqueue of a head the PR no longer
// has and any binding of a closed PR, while an enqueue of the open PR's
// current head is still re-driven.
func TestSweepDropsAnEnqueueOfAnOldHead(t *testing.T) {
	e := newSimEnv(t)
	ctx := context.Background()
	pr := e.plainPR(t)
	j := effects.New(e.be.RDB)
	q := jobs.NewQueue(e.be)
	t.Cleanup(func() { q.Inspector().DeleteAllPendingTasks(jobs.QueueDefault); q.Close() })
	old, cur := "1111111111111111111111111111111111111111", pr.GetHead().GetSHA()
	for _, sha := range []string{old, cur} {
		key := "enqueue:" + repo + "#" + fmt.Sprint(pr.GetNumber()) + ":" + sha
		if err := j.Begin(ctx, effects.Intent{Key: key, Kind: "enqueue", Repo: repo, Installation: inst, PR: pr.GetNumber(), SHA: sha, At: time.Now().Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	l := &Lifecycle{App: e.app, Queue: q, Effects: j, Log: quiet}
	for i, want := range []int{2, 1} { // the old head's intent is gone after the first sweep
		if n, err := l.SweepEffects(ctx, time.Now().Add(time.Duration(i+1)*time.Hour), 10*time.Minute); err != nil || n != want {
			t.Fatalf("sweep %d: re-drove %d (%v), want %d", i, n, err, want)
		}
	}
	keys, _ := e.be.RDB.ZRange(ctx, "warden:effects:pending", 0, -1).Result()
	for _, k := range keys {
		if k == "enqueue:"+repo+"#"+fmt.Sprint(pr.GetNumber())+":"+old {
			t.Fatalf("the old head's enqueue is still pending: %v", keys)
		}
	}
	// Closed (here: merged by GitHub's auto-merge before Warden's take-back
	// got through): its take-back is moot, and so is the current head's enqueue.
	key := "automerge-off:" + repo + "#" + fmt.Sprint(pr.GetNumber()) + ":"
	if err := j.Begin(ctx, effects.Intent{Key: key, Kind: "automerge-off", Repo: repo, Installation: inst, PR: pr.GetNumber(), At: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	e.gh.ClosePull(repo, pr.GetNumber(), true)
	for i, want := range []int{2, 0} {
		if n, err := l.SweepEffects(ctx, time.Now().Add(time.Duration(i+3)*time.Hour), 10*time.Minute); err != nil || n != want {
			t.Fatalf("sweep after the close %d: re-drove %d (%v), want %d", i, n, err, want)
		}
	}
}
