package lifecycle

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/jobs"
)

// Found by the interleaving test (#38): an enqueue GitHub answered without
// an entry stays unconfirmed, and once the PR's head moved no evaluation
// could confirm it (each enqueues the current head): the sweeper
// re-evaluated the PR for as long as the journal kept the intent. It now
// re-reads the PR and drops an enqueue of a head the PR no longer has,
// while one of the current head is still re-driven.
func TestSweepDropsAnEnqueueOfAnOldHead(t *testing.T) {
	e := newSimEnv(t)
	ctx := context.Background()
	pr, _, err := e.client.PullRequests.Create(ctx, "Codertocat", "Hello-World", &github.NewPullRequest{
		Title: github.String("t"), Head: github.String("main"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
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
}
