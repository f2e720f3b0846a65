package supervisor

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Backoff is how delays grow between attempts.
type Backoff int

// Backoffs.
const (
	Exponential Backoff = iota
	Linear
	Constant
)

// Policy is a retry policy: how many attempts and how long to wait between.
type Policy struct {
	MaxAttempts int
	Backoff     Backoff
	Initial     time.Duration
	Max         time.Duration
	Factor      float64
	Jitter      float64 // ±fraction, re-capped at Max after jitter
	rand        func() float64
}

// The named policies of DESIGN.md §3.
var (
	None       = Policy{MaxAttempts: 1, Initial: time.Second, Max: time.Second, Factor: 1}
	Standard   = Policy{MaxAttempts: 3, Initial: time.Second, Max: 30 * time.Second, Factor: 2, Jitter: 0.2}
	Aggressive = Policy{MaxAttempts: 5, Initial: 200 * time.Millisecond, Max: 30 * time.Second, Factor: 2, Jitter: 0.2}
	Patient    = Policy{MaxAttempts: 3, Initial: 5 * time.Second, Max: 90 * time.Second, Factor: 3, Jitter: 0.2}
)

// PolicyByName returns a named policy.
func PolicyByName(name string) (Policy, error) {
	switch name {
	case "none":
		return None, nil
	case "standard", "":
		return Standard, nil
	case "aggressive":
		return Aggressive, nil
	case "patient":
		return Patient, nil
	}
	return Policy{}, fmt.Errorf("unknown retry policy %q", name)
}

// NewPolicy builds an explicit policy (a repository's retry setting).
func NewPolicy(maxAttempts int, backoff string, initial, maxDelay time.Duration) (Policy, error) {
	p := Policy{MaxAttempts: maxAttempts, Initial: initial, Max: maxDelay, Factor: 2, Jitter: 0.2}
	switch backoff {
	case "linear":
		p.Backoff = Linear
	case "constant":
		p.Backoff = Constant
	case "exponential", "":
	default:
		return Policy{}, fmt.Errorf("unknown backoff %q", backoff)
	}
	if p.MaxAttempts < 1 {
		return Policy{}, fmt.Errorf("max_attempts must be at least 1")
	}
	if p.Initial <= 0 {
		p.Initial = time.Second
	}
	if p.Max < p.Initial {
		p.Max = p.Initial
	}
	return p, nil
}

// Delay is the wait before attempt n+1 after attempt n (1-based) failed. A
// server's Retry-After overrides the computed delay.
func (p Policy) Delay(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := float64(p.Initial)
	switch p.Backoff {
	case Exponential:
		for range attempt - 1 {
			d *= max(p.Factor, 1)
		}
	case Linear:
		d *= float64(attempt)
	}
	if p.Jitter > 0 {
		r := rand.Float64
		if p.rand != nil {
			r = p.rand
		}
		d *= 1 + p.Jitter*(2*r()-1)
	}
	return min(time.Duration(d), p.Max)
}

// DeferError says the next attempt should come back later as a deferred
// task instead of holding a worker while it waits.
type DeferError struct{ After time.Duration }

func (e *DeferError) Error() string { return fmt.Sprintf("retry deferred for %s", e.After) }

// Wait sleeps d on clk, honouring ctx. A wait past the policy's cap (a long
// Retry-After) is not slept: it returns a *DeferError.
func Wait(ctx context.Context, clk Clock, d time.Duration, p Policy) error {
	if p.Max > 0 && d > p.Max {
		return &DeferError{After: d}
	}
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C():
		return nil
	}
}
