package supervisor

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Heartbeat and stall watchdogs, and panic containment.

// hanger waits for its context and reports the cause it was canceled with.
func hanger(name string, causes chan<- error, alive func(context.Context)) ChildSpec {
	return ChildSpec{Name: name, Restart: Transient, Start: func(ctx context.Context) error {
		for {
			select {
			case <-ctx.Done():
				causes <- context.Cause(ctx)
				return ctx.Err()
			case <-time.After(time.Second):
				if alive != nil {
					alive(ctx)
				}
			}
		}
	}}
}

func TestHeartbeatMissed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, causes := &recorder{}, make(chan error, 4)
		c := hanger("hang", causes, nil)
		c.Heartbeat = 10 * time.Second
		h := start(Spec{Name: "s", OnEvent: rec.on}, c)
		t0 := time.Now()

		cause := <-causes
		if d := time.Since(t0); d != 10*time.Second {
			t.Errorf("canceled after %s, want 10s", d)
		}
		var se *StallError
		if !errors.As(cause, &se) || *se != (StallError{Child: "hang", Kind: "heartbeat", After: 10 * time.Second}) {
			t.Fatalf("child saw cause %v, want a heartbeat StallError", cause)
		}
		if !se.Hang() || !strings.Contains(se.Error(), "missed its heartbeat") {
			t.Errorf("StallError: Hang=%v Error=%q", se.Hang(), se.Error())
		}
		synctest.Wait()
		if e := rec.find(t, EventHeartbeatMissed, "hang"); e.Err != error(se) || e.Supervisor != "s" {
			t.Errorf("heartbeat_missed = %+v", e)
		}
		// The child returned ctx.Err(); the supervisor sees the StallError.
		if e := rec.find(t, EventExited, "hang"); e.Err != error(se) {
			t.Errorf("exited Err = %v, want the StallError", e.Err)
		}
		if n := rec.count(EventRestarted, "hang"); n != 1 {
			t.Errorf("a transient hang was restarted %d times, want 1", n)
		}
		h.stop()
	})
}

func TestStall(t *testing.T) {
	for _, hb := range []time.Duration{0, 3 * time.Second} {
		synctest.Test(t, func(t *testing.T) {
			rec, causes := &recorder{}, make(chan error, 4)
			c := hanger("busy", causes, Beat) // beats every second, never progresses
			c.Heartbeat, c.Stall = hb, 10*time.Second
			h := start(Spec{OnEvent: rec.on}, c)
			t0 := time.Now()

			cause := <-causes
			if d := time.Since(t0); d != 10*time.Second {
				t.Errorf("heartbeat %s: canceled after %s, want 10s", hb, d)
			}
			var se *StallError
			if !errors.As(cause, &se) || se.Kind != "stall" || se.After != 10*time.Second || !strings.Contains(se.Error(), "stalled") {
				t.Fatalf("heartbeat %s: child saw cause %v, want a stall StallError", hb, cause)
			}
			synctest.Wait()
			eq(t, "watchdog events", rec.trace(EventHeartbeatMissed, EventStalled), []string{"stalled busy"})
			if e := rec.find(t, EventExited, "busy"); !errors.As(e.Err, &se) || se.Kind != "stall" {
				t.Errorf("exited Err = %v, want the StallError", e.Err)
			}
			h.stop()
		})
	}
}

// TestSignalsKeepChildAlive runs a child that works for a minute, giving a
// signal every 4 s, under watchdogs of 5 s that those signals satisfy.
func TestSignalsKeepChildAlive(t *testing.T) {
	for _, tc := range []struct {
		name             string
		signal           func(context.Context)
		heartbeat, stall time.Duration
	}{
		{"beat_heartbeat", Beat, 5 * time.Second, 0},
		{"progress_heartbeat", Progress, 5 * time.Second, 0},
		{"progress_stall", Progress, 5 * time.Second, 5 * time.Second},
		{"no_watchdog", func(ctx context.Context) { Beat(ctx); Beat(ctx); Progress(ctx); Progress(ctx) }, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recorder{}
				done := make(chan error, 1)
				c := ChildSpec{Name: "worker", Restart: Temporary, Heartbeat: tc.heartbeat, Stall: tc.stall,
					Start: func(ctx context.Context) error {
						for range 15 {
							time.Sleep(4 * time.Second)
							tc.signal(ctx)
						}
						done <- ctx.Err()
						return nil
					}}
				h := start(Spec{OnEvent: rec.on}, c)
				if err := <-done; err != nil {
					t.Fatalf("worker's context ended: %v", err)
				}
				synctest.Wait()
				if e := rec.find(t, EventExited, "worker"); e.Err != nil {
					t.Errorf("exited Err = %v", e.Err)
				}
				eq(t, "watchdog events", rec.trace(EventHeartbeatMissed, EventStalled), nil)
				h.stop()
			})
		})
	}
}

// Beat and Progress are called from agent code that may run unsupervised
// (bot run, tests): outside a child they do nothing; inside one they never
// block the child, however long its watchdog takes to read.
func TestSignalsOutsideChildAreNoOps(t *testing.T) {
	returnsAtOnce := func(what string, fn func()) {
		t.Helper()
		done := make(chan any, 1)
		go func() {
			defer func() { done <- recover() }()
			fn()
		}()
		select {
		case p := <-done:
			if p != nil {
				t.Fatalf("%s: panicked: %v", what, p)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("%s: blocked", what)
		}
	}
	returnsAtOnce("outside a child", func() {
		for _, ctx := range []context.Context{context.Background(), t.Context(), context.WithValue(t.Context(), beatsKey{}, "not beats")} {
			Beat(ctx)
			Progress(ctx)
		}
	})
	b := &beats{beat: make(chan struct{}, 1), progress: make(chan struct{}, 1)}
	ctx := context.WithValue(t.Context(), beatsKey{}, b)
	returnsAtOnce("inside a child nobody reads", func() {
		for range 3 {
			Beat(ctx)
			Progress(ctx)
		}
	})
	if len(b.beat) != 1 || len(b.progress) != 1 {
		t.Fatalf("signals lost: %d beats, %d progress", len(b.beat), len(b.progress))
	}
}

func TestPanicIsContained(t *testing.T) {
	for _, tc := range []struct {
		restart Restart
		starts  int32
	}{{Permanent, 2}, {Transient, 2}, {Temporary, 1}} {
		synctest.Test(t, func(t *testing.T) {
			rec := &recorder{}
			var starts atomic.Int32
			c := ChildSpec{Name: "p", Restart: tc.restart, Start: func(ctx context.Context) error {
				if starts.Add(1) == 1 {
					panic("kaboom")
				}
				<-ctx.Done()
				return ctx.Err()
			}}
			h := start(Spec{Name: "s", OnEvent: rec.on}, c)
			if n := starts.Load(); n != tc.starts {
				t.Errorf("restart %d: started %d times, want %d", tc.restart, n, tc.starts)
			}
			var pe *PanicError
			if e := rec.find(t, EventExited, "p"); !errors.As(e.Err, &pe) {
				t.Fatalf("exited Err = %v, want *PanicError", e.Err)
			}
			if pe.Value != "kaboom" || pe.Panic() != "kaboom" || len(pe.Stack) == 0 || pe.Error() != "panic: kaboom" {
				t.Errorf("PanicError = %v (stack %d bytes)", pe, len(pe.Stack))
			}
			if e := rec.find(t, EventPanicked, "p"); e.Err != error(pe) || e.Supervisor != "s" {
				t.Errorf("panicked = %+v", e)
			}
			h.stop()
		})
	}
}

func TestPanickingChildTrips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := ChildSpec{Name: "p", Start: func(context.Context) error { panic(errBoom) }}
		err := New(Spec{Intensity: 2, Period: time.Second}, c).Run(t.Context())
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Value != errBoom {
			t.Fatalf("Run = %v, want IntensityExceeded with the last panic", err)
		}
	})
}
