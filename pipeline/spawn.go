package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/warden-bot/warden/supervisor"
)

// spawn queues the task of every sub-issue as a child of a
// simple_one_for_one supervisor: a failed enqueue (a Redis blip) restarts
// that child alone, after a short backoff, and never queues the others
// twice. It returns the sub-issues whose task could not be queued.
func (a *attempt) spawn(ctx context.Context, nums []int) []int {
	if a.p.Spawn == nil || len(nums) == 0 {
		return nil
	}
	sup := supervisor.New(supervisor.Spec{
		Name: "decomposition", Strategy: supervisor.SimpleOneForOne,
		Intensity: 2 * len(nums), Period: time.Minute, OnEvent: a.event,
	})
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	ended := make(chan error, 1)
	go func() { ended <- sup.Run(runCtx) }()

	var mu sync.Mutex
	queued := map[int]bool{}
	done := make(chan struct{}, len(nums)) // one per sub-issue queued
	want := 0
	for _, n := range nums {
		tries := 0
		child := supervisor.ChildSpec{Name: fmt.Sprintf("#%d", n), Restart: supervisor.Transient, Start: func(ctx context.Context) error {
			if tries++; tries > 1 {
				if err := supervisor.Wait(ctx, supervisor.RealClock(), supervisor.Aggressive.Delay(tries-1, 0), supervisor.Aggressive); err != nil {
					return supervisor.Shutdown(err)
				}
			}
			if err := a.p.Spawn(ctx, a.t, n); err != nil {
				a.log.Warn("sub-issue task not queued; retrying", "sub_issue", n, "try", tries, "err", err)
				return err
			}
			mu.Lock()
			queued[n] = true
			mu.Unlock()
			done <- struct{}{}
			return nil
		}}
		if sup.StartChild(ctx, child) == nil {
			want++
		}
	}
	var runErr error
	for got := 0; got < want && runErr == nil; {
		select {
		case <-done:
			got++
		case runErr = <-ended: // intensity exceeded: the rest stay unqueued
			a.log.Warn("sub-issue tasks not all queued", "err", runErr)
		}
	}
	stop()
	if runErr == nil {
		<-ended
	}
	mu.Lock()
	defer mu.Unlock()
	var missing []int
	for _, n := range nums {
		if !queued[n] {
			missing = append(missing, n)
		}
	}
	return missing
}
