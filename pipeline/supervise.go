package pipeline

import (
	"context"
	"errors"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/supervisor"
)

// supervise runs one stage with its retry policy: transient and hollow
// failures are retried with backoff (honouring Retry-After), panics are
// recovered into errors, and a stage that exceeds its timeout is stopped
// with a cause that classifies as transient. A wait longer than the policy's
// cap turns into a deferral instead of holding the worker.
func (a *attempt) supervise(ctx context.Context, name string, fn func(context.Context) error) error {
	policy := a.retryPolicy(name)
	var err error
	for try := 1; ; try++ {
		err = a.once(ctx, name, fn)
		if err == nil || ctx.Err() != nil {
			return err
		}
		var end *ending
		if errors.As(err, &end) {
			return err
		}
		v := outcome.Classify(err)
		if (v.Class != outcome.Transient && v.Class != outcome.Hollow) || try >= policy.MaxAttempts {
			return err
		}
		d := policy.Delay(try, v.RetryAfter)
		a.log.Info("stage failed; retrying", "stage", name, "try", try, "delay_ms", d.Milliseconds(), "err", err)
		if werr := supervisor.Wait(ctx, supervisor.RealClock(), d, policy); werr != nil {
			return werr
		}
	}
}

// once runs fn with a stage deadline, recovering a panic.
func (a *attempt) once(ctx context.Context, name string, fn func(context.Context) error) (err error) {
	timeout := a.cfg.Timeouts.Stage
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	sctx, cancel := context.WithTimeoutCause(ctx, timeout, &outcome.Error{Class: outcome.Transient, Stage: name, Msg: "stage timed out after " + timeout.String()})
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			err = supervisor.NewPanicError(r)
		}
	}()
	err = fn(sctx)
	if err != nil && sctx.Err() != nil && ctx.Err() == nil {
		err = context.Cause(sctx) // the stage deadline, not the task's cancel
	}
	return err
}

func (a *attempt) retryPolicy(stage string) supervisor.Policy {
	r := a.cfg.RetryFor(stage)
	p, err := supervisor.PolicyByName(r.Name)
	if r.Name == "" {
		p, err = supervisor.NewPolicy(r.MaxAttempts, r.Backoff, r.InitialDelay, r.MaxDelay)
	}
	if err != nil {
		p, _ = supervisor.PolicyByName("standard")
	}
	return p
}

// deferDelay spaces deferrals out: 10 min, 30 min, 90 min, … ≤ 6 h.
func deferDelay(n int) time.Duration {
	d := 10 * time.Minute
	for range n {
		d *= 3
	}
	return min(d, 6*time.Hour)
}
