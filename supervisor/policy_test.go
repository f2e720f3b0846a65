package supervisor

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// Retry policies.

func TestPolicyByName(t *testing.T) {
	for name, want := range map[string]Policy{"none": None, "standard": Standard, "": Standard, "aggressive": Aggressive, "patient": Patient} {
		if got, err := PolicyByName(name); err != nil || got.MaxAttempts != want.MaxAttempts || got.Initial != want.Initial || got.Max != want.Max {
			t.Errorf("PolicyByName(%q) = %+v, %v", name, got, err)
		}
	}
	if _, err := PolicyByName("reckless"); err == nil {
		t.Error("PolicyByName(unknown) gave no error")
	}
}

func TestNewPolicy(t *testing.T) {
	for _, tc := range []struct {
		backoff string
		want    Backoff
	}{{"", Exponential}, {"exponential", Exponential}, {"linear", Linear}, {"constant", Constant}} {
		p, err := NewPolicy(2, tc.backoff, 0, 0)
		if err != nil || p.Backoff != tc.want || p.MaxAttempts != 2 || p.Initial != time.Second || p.Max != time.Second {
			t.Errorf("NewPolicy(%q) = %+v, %v", tc.backoff, p, err)
		}
	}
	if _, err := NewPolicy(3, "fibonacci", time.Second, time.Minute); err == nil {
		t.Error("unknown backoff accepted")
	}
	if _, err := NewPolicy(0, "linear", time.Second, time.Minute); err == nil {
		t.Error("max_attempts 0 accepted")
	}
}

func TestDelay(t *testing.T) {
	base := Policy{Initial: time.Second, Max: 10 * time.Second, Factor: 2}
	for _, tc := range []struct {
		name    string
		backoff Backoff
		attempt int
		want    time.Duration
	}{
		{"exponential_1", Exponential, 1, time.Second},
		{"exponential_3", Exponential, 3, 4 * time.Second},
		{"exponential_capped", Exponential, 10, 10 * time.Second},
		{"linear_3", Linear, 3, 3 * time.Second},
		{"constant_5", Constant, 5, time.Second},
	} {
		p := base
		p.Backoff = tc.backoff
		if got := p.Delay(tc.attempt, 0); got != tc.want {
			t.Errorf("%s: Delay = %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := base.Delay(3, time.Hour); got != time.Hour {
		t.Errorf("Retry-After not honoured: %s", got)
	}
	j := base
	j.Jitter = 0.5
	for r, want := range map[float64]time.Duration{0: 500 * time.Millisecond, 0.5: time.Second, 1: 1500 * time.Millisecond} {
		j.rand = func() float64 { return r }
		if got := j.Delay(1, 0); got != want {
			t.Errorf("jitter at %v: Delay = %s, want %s", r, got, want)
		}
	}
	j.rand = nil
	for range 100 {
		if d := Standard.Delay(2, 0); d < 1600*time.Millisecond || d > 2400*time.Millisecond {
			t.Fatalf("Standard.Delay(2) = %s, outside ±20%% of 2s", d)
		}
	}
}

func TestWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := RealClock()
		t0 := clk.Now()
		if err := Wait(t.Context(), clk, 3*time.Second, Standard); err != nil || time.Since(t0) != 3*time.Second {
			t.Errorf("Wait = %v after %s", err, time.Since(t0))
		}
		var de *DeferError
		if err := Wait(t.Context(), clk, time.Hour, Standard); !errors.As(err, &de) || de.After != time.Hour || de.Error() != "retry deferred for 1h0m0s" {
			t.Errorf("Wait past Max = %v, want DeferError", err)
		}
		ctx, cancel := context.WithCancelCause(t.Context())
		time.AfterFunc(time.Second, func() { cancel(errBoom) })
		if err := Wait(ctx, clk, 20*time.Second, Standard); !errors.Is(err, errBoom) {
			t.Errorf("canceled Wait = %v, want the cause", err)
		}
	})
}
