package environment

import (
	"context"
	"errors"
	"testing"
	"time"
)

// #38 suspected item: a baseline shared by attempts died with the context
// of the attempt that started it, and the attempts still waiting then
// counted the base's failures as their model's.
func TestSharedBaselineOutlivesTheAttemptThatStartedIt(t *testing.T) {
	key := t.Name()
	lead, leader := join(key)
	if !leader {
		t.Fatal("the first attempt on a base should lead its baseline")
	}
	release := make(chan struct{})
	leadCtx, endLead := context.WithCancel(context.Background())
	lead.start(leadCtx, func(ctx context.Context) (Baseline, error) {
		<-release
		if err := ctx.Err(); err != nil { // as runBaseline: a canceled run is no result
			return Baseline{}, err
		}
		return Baseline{Base: "b1", Failed: []string{"TestOld"}}, nil
	})
	other, leader := join(key)
	if leader || other != lead {
		t.Fatal("a second attempt on the same base should share the running baseline")
	}
	endLead() // the leading attempt ends early (no change needed, canceled)
	lead.leave()
	close(release)
	b, err := other.wait(context.Background())
	if err != nil || !b.Failing("TestOld") {
		t.Fatalf("the waiting attempt got (%+v, %v), want the base's result: the baseline died with its leader", b, err)
	}
	other.leave()
}

func TestBaselineStopsWhenEveryAttemptLeft(t *testing.T) {
	key := t.Name()
	f, _ := join(key)
	stopped := make(chan struct{})
	f.start(context.Background(), func(ctx context.Context) (Baseline, error) {
		<-ctx.Done()
		close(stopped)
		return Baseline{}, ctx.Err()
	})
	g, _ := join(key)
	f.leave()
	select {
	case <-stopped:
		t.Fatal("the baseline stopped while an attempt still waited for it")
	case <-time.After(50 * time.Millisecond):
	}
	g.leave()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the baseline ran on after every attempt sharing it had left")
	}
	if _, err := f.wait(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("a stopped baseline answered %v", err)
	}
	h, leader := join(key)
	if !leader || h == f {
		t.Fatal("an attempt after everyone left should start a new baseline, not join the stopped one")
	}
	h.finish(Baseline{}, nil)
	h.leave()
}
