package pipeline

import (
	"context"
	"time"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/observe/transcript"
	"github.com/warden-bot/warden/supervisor"
)

// live runs one model call while telling the stage's supervisor that
// Warden is alive; the reply, whatever it says, counts as progress. A reply
// that never comes is therefore caught by the stall watchdog, and the
// heartbeat by itself catches Warden's own code hanging between calls.
func (a *attempt) live(ctx context.Context, call func() error) error {
	stop := make(chan struct{})
	if a.cfg.Timeouts.Heartbeat > 0 {
		go func() {
			t := time.NewTicker(a.keepalive())
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					supervisor.Beat(ctx)
				}
			}
		}()
	}
	err := call()
	close(stop)
	supervisor.Progress(ctx)
	return err
}

func (a *attempt) askEdit(ctx context.Context, stage, prompt string) error {
	start, before := time.Now(), a.usage()
	err := a.live(ctx, func() error {
		_, err := a.session.Edit(ctx, stage, prompt+a.guidanceBlock(), a.apply)
		return err
	})
	a.noteTurn(stage, start, before, err)
	return err
}

func (a *attempt) askPlan(ctx context.Context, feedback string) (agent.Plan, error) {
	var plan agent.Plan
	start, before := time.Now(), a.usage()
	err := a.live(ctx, func() (err error) {
		in := a.planInput(ctx, feedback)
		in.Guidance = a.guidanceBlock()
		plan, err = a.session.Plan(ctx, in)
		return err
	})
	a.noteTurn("plan", start, before, err)
	return plan, err
}

func (a *attempt) askReview(ctx context.Context, in agent.ReviewInput) (agent.Review, error) {
	var rv agent.Review
	start, before := time.Now(), a.usage()
	err := a.live(ctx, func() (err error) {
		in.Guidance = a.guidanceBlock()
		rv, err = a.session.Review(ctx, in)
		return err
	})
	a.noteTurn("review", start, before, err)
	if err == nil {
		a.tx.Add(transcript.Model, "review: "+rv.GoalStatus, rv.Missing)
	}
	return rv, err
}

// watched reports whether a stage gets the heartbeat and stall watchdogs:
// the ones that wait on the model, unless the agent is an external command,
// which reports no progress and is bounded by its own timeout.
func (a *attempt) watched(stage string) bool {
	if _, ok := a.session.(*ExecSession); ok {
		return false
	}
	return stage == StagePlan || stage == StageImplement || stage == StageReview
}

// idle waits for ready to close, or for d when ready is nil, telling the
// watchdogs that waiting is not stalling: a stage waiting for its
// predecessor or for its backoff has not started work yet.
func (a *attempt) idle(ctx context.Context, ready <-chan struct{}, d time.Duration) error {
	var timeout <-chan time.Time
	if ready == nil {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	tick := time.NewTicker(a.keepalive())
	defer tick.Stop()
	defer supervisor.Progress(ctx)
	for {
		select {
		case <-ready:
			return nil
		case <-timeout:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
			supervisor.Progress(ctx)
		}
	}
}

// keepalive is how often a live stage signals: well inside the shortest watchdog.
func (a *attempt) keepalive() time.Duration {
	d := time.Minute
	for _, w := range []time.Duration{a.cfg.Timeouts.Heartbeat, a.cfg.Timeouts.Stall} {
		if w > 0 {
			d = min(d, w/3)
		}
	}
	return max(d, time.Millisecond)
}
