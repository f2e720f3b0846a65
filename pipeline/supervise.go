package pipeline

import (
	"context"
	"errors"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/supervisor"
)

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
	chaos(name, a.wt.Dir)
	err = withHTTPStatus(fn(sctx))
	if err == nil || sctx.Err() == nil {
		return err
	}
	var stall *supervisor.StallError
	switch cause := context.Cause(sctx); {
	case ctx.Err() == nil:
		return cause // the stage deadline, not the task's cancel
	case errors.As(cause, &stall):
		return stall // a watchdog stopped the stage: worth another try
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
