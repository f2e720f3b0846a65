package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/supervisor"
)

// step is one stage of a pass through the pipeline.
type step struct {
	name string
	fn   func(context.Context) error
}

// pass is the shared state of one chain run: who may go next and how it ended.
type pass struct {
	ready []chan struct{} // ready[i] is closed once step i is done or the pass ended
	mu    sync.Mutex
	err   error // the first terminal failure
	over  atomic.Bool
}

// end records the pass's terminal error and releases every waiting stage.
func (p *pass) end(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.over.Swap(true) {
		return
	}
	p.err = err
	for _, ch := range p.ready {
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
}

// chain runs steps in order as the children of a rest_for_one supervisor
// (DESIGN.md §3): each waits for its predecessor, so a transient failure of
// one stage restarts it and every stage after it, while earlier stages keep
// their results. A terminal failure, or one past the stage's max_attempts,
// ends the pass; the supervisor shuts down when every stage has ended.
func (a *attempt) chain(ctx context.Context, name string, steps []step) error {
	p := &pass{ready: make([]chan struct{}, len(steps))}
	for i := range p.ready {
		p.ready[i] = make(chan struct{})
	}
	children := make([]supervisor.ChildSpec, len(steps))
	allowed := 0
	for i, st := range steps {
		children[i] = a.stageChild(p, i, st)
		allowed += max(a.retryPolicy(st.name).MaxAttempts-1, 0)
	}
	sup := supervisor.New(supervisor.Spec{
		Name: name, Strategy: supervisor.RestForOne, AutoShutdown: supervisor.AllSignificant,
		// Every stage's own max_attempts bounds its restarts first; the
		// supervisor's intensity is the backstop for the sum of them.
		Intensity: allowed, Period: 24 * time.Hour, OnEvent: a.event,
	}, children...)
	err := sup.Run(ctx)
	switch {
	case p.err != nil:
		return p.err
	case supervisor.IsShutdown(err):
		return nil
	}
	return err // nil, intensity exceeded, or the attempt's context ended
}

// stageChild is step i as a transient, significant child.
func (a *attempt) stageChild(p *pass, i int, st step) supervisor.ChildSpec {
	var tries atomic.Int32
	var last atomic.Value // error of the previous try, for Retry-After
	spec := supervisor.ChildSpec{Name: st.name, Restart: supervisor.Transient, Significant: true}
	if a.watched(st.name) {
		spec.Stall, spec.Heartbeat = a.cfg.Timeouts.Stall, a.cfg.Timeouts.Heartbeat
	}
	spec.Start = func(ctx context.Context) error {
		if i > 0 {
			if err := a.idle(ctx, p.ready[i-1], 0); err != nil {
				return err
			}
		}
		if p.over.Load() {
			return nil // an earlier stage ended the pass
		}
		n := int(tries.Add(1))
		policy := a.retryPolicy(st.name)
		if n > 1 {
			if err := a.beforeRetry(ctx, st.name, n, policy, last.Load()); err != nil {
				p.end(err)
				return supervisor.Shutdown(err)
			}
		}
		err := a.stage(ctx, st.name, st.fn, n < policy.MaxAttempts)
		switch {
		case err == nil:
			close(p.ready[i])
			return nil
		case errors.Is(context.Cause(ctx), supervisor.ErrShutdown):
			return err // stopped by the supervisor, which ignores this exit
		}
		err = a.count(ctx, st.name, err)
		if retryable(err) && n < policy.MaxAttempts && !a.tripped(err) {
			last.Store(errBox{err})
			return err // abnormal exit: the supervisor restarts this stage and those after it
		}
		if !errors.As(err, new(*ending)) {
			a.tr.stage(context.WithoutCancel(ctx), st.name, "failed", "")
		}
		p.end(err)
		return supervisor.Shutdown(err)
	}
	return spec
}

type errBox struct{ error }

// beforeRetry waits the policy's backoff (a long Retry-After becomes a
// deferral) and applies the stage's recovery policy: clean forgets the
// model conversation, resume keeps it.
func (a *attempt) beforeRetry(ctx context.Context, stage string, n int, policy supervisor.Policy, prev any) error {
	var retryAfter time.Duration
	if b, ok := prev.(errBox); ok {
		retryAfter = outcome.Classify(b.error).RetryAfter
	}
	d := policy.Delay(n-1, retryAfter)
	a.log.Info("stage failed; restarting", "stage", stage, "try", n, "delay_ms", d.Milliseconds())
	if policy.Max > 0 && d > policy.Max {
		return &supervisor.DeferError{After: d}
	}
	if err := a.idle(ctx, nil, d); err != nil {
		return err
	}
	if stage == StageImplement {
		// rest_for_one: the restarted stage's earlier output is void.
		if err := a.wt.Reset(ctx); err != nil {
			return fmt.Errorf("reset worktree before restarting %s: %w", stage, err)
		}
	}
	if a.recovery(stage) == "clean" {
		if r, ok := a.session.(interface{ ResetConversation(string) }); ok {
			r.ResetConversation(strings.ToLower(stage))
		}
	}
	return nil
}

func (a *attempt) recovery(stage string) string {
	if r := a.cfg.Recovery[strings.ToLower(stage)]; r != "" {
		return r
	}
	return "clean" // OTP's semantics: a restarted child starts from scratch
}

func retryable(err error) bool {
	var end *ending
	if errors.As(err, &end) {
		return false
	}
	var oe *outcome.Error
	if errors.As(err, &oe) && oe.Class == outcome.Hollow && oe.Stage == StageReview {
		return false // a hollow verdict ends the attempt (CONTRACT): another review must not release it
	}
	c := outcome.Classify(err).Class
	return c == outcome.Transient || c == outcome.Hollow
}

// event passes a supervisor event on with the task it belongs to.
func (a *attempt) event(e supervisor.Event) {
	if a.p.OnEvent != nil {
		a.p.OnEvent(a.t, e)
	}
}
