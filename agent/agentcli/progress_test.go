package agentcli

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/warden-bot/warden/agent/meter"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/supervisor"
	"github.com/warden-bot/warden/test/fakemodel"
)

const testStall = 10 * time.Second

// supervised runs edit as the one significant child of a supervisor on clk
// with the stall watchdog set, and reports the child's error and whether
// the supervisor reported a stall.
func supervised(clk supervisor.Clock, edit func(context.Context) error) (err error, stalled bool) {
	var stalls int
	sup := supervisor.New(supervisor.Spec{Name: "attempt", AutoShutdown: supervisor.AnySignificant, Clock: clk,
		OnEvent: func(e supervisor.Event) {
			if e.Kind == supervisor.EventStalled {
				stalls++ // the watchdog's emit happens before the child can exit
			}
		}},
		supervisor.ChildSpec{Name: "implement", Restart: supervisor.Temporary, Significant: true, Stall: testStall,
			Start: func(ctx context.Context) error { err = edit(ctx); return err }})
	_ = sup.Run(context.Background())
	return err, stalls > 0
}

func cliSession(r *rig, issue int) *Session {
	return &Session{Runner: r.runner, Tree: sandbox.Tree{Dir: r.dir}, Scope: meter.Scope{Repo: "o/r", Issue: issue}}
}

func noApply(string) ([]string, error) { return nil, nil }

// Every event the CLI streams is progress: a CLI working far longer than
// the stall timeout, with events in between, is not stopped. The clock moves
// by nine tenths of the stall at each of the CLI's steps, once the watchdog
// has re-armed after the last move.
func TestCLIEventsAreProgressOnTheSupervisorClock(t *testing.T) {
	r := newRig(t, "claude-code")
	r.fake.Agent(func(tt fakemodel.AgentTurn) fakemodel.AgentStep {
		switch {
		case tt.Turn == 0:
			return fakemodel.AgentStep{Read: "a.txt"}
		case tt.Turn <= 5:
			return fakemodel.AgentStep{Run: "true"}
		}
		return fakemodel.AgentStep{Text: "Done."}
	})
	clk := newHandClock()
	s, moved, unseen := cliSession(r, 4), time.Duration(0), 0
	s.Observe(func(stage, steps string) {
		if !clk.waitArmed(testStall) {
			unseen++ // the watchdog did not take the event as progress
		}
		clk.Advance(testStall * 9 / 10)
		moved += testStall * 9 / 10
	})
	err, stalled := supervised(clk, func(ctx context.Context) error {
		_, err := s.Edit(ctx, "implement", "change hello to goodbye", noApply)
		return err
	})
	if err != nil || stalled || unseen > 0 || moved < 3*testStall {
		t.Fatalf("err %v, stalled %v, %d events not taken as progress, the clock moved %s over the CLI's steps (want more than %s)",
			err, stalled, unseen, moved, 3*testStall)
	}
}

// The same clock stops a CLI that goes silent: the test above passes because
// of the events, not because this clock never fires.
func TestSilentCLIStallsOnTheSupervisorClock(t *testing.T) {
	r := newRig(t, "claude-code")
	asked := make(chan struct{}, 1)
	r.fake.Agent(func(tt fakemodel.AgentTurn) fakemodel.AgentStep {
		select {
		case asked <- struct{}{}:
		default:
		}
		return fakemodel.AgentStep{Hang: 5 * time.Minute}
	})
	clk := newHandClock()
	s := cliSession(r, 5)
	type result struct {
		err     error
		stalled bool
	}
	done := make(chan result, 1)
	go func() {
		err, stalled := supervised(clk, func(ctx context.Context) error {
			_, err := s.Edit(ctx, "implement", "change hello to goodbye", noApply)
			return err
		})
		done <- result{err, stalled}
	}()
	<-asked
	for {
		clk.Advance(testStall)
		select {
		case res := <-done:
			var se *supervisor.StallError
			if !errors.As(res.err, &se) || !res.stalled {
				t.Fatalf("err %v, stalled %v: want the stall watchdog to stop the silent CLI", res.err, res.stalled)
			}
			return
		case <-clk.made: // the watchdog re-armed (an event after the move): move again
		}
	}
}
