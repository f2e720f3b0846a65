package supervisor

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// Shutdown by context, shutdown timeouts, events and the calls made from
// outside Run.

func TestCancelStopsChildrenInReverseAndReturnsCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, rec := newKids(), &recorder{}
		h := start(Spec{Name: "s", OnEvent: rec.on}, k.spec("a", Permanent), k.spec("b", Transient), k.spec("c", Temporary))
		k.take("")
		if err := h.stop(); !errors.Is(err, errStop) {
			t.Fatalf("Run = %v, want the cancel cause %v", err, errStop)
		}
		eq(t, "stopped", k.take(""), []string{"stop c", "stop b", "stop a"})
		for _, name := range []string{"a", "b", "c"} {
			if !errors.Is(k.causeOf(name), ErrShutdown) {
				t.Errorf("%s saw cause %v, want ErrShutdown", name, k.causeOf(name))
			}
		}
		e := rec.events()
		if last := e[len(e)-1]; last.Kind != EventSupervisorShutdown || last.Supervisor != "s" || !errors.Is(last.Err, errStop) {
			t.Errorf("last event = %+v, want supervisor_shutdown with the cause", last)
		}
		if n := len(rec.trace(EventRestarted)); n != 0 {
			t.Errorf("%d restarts during shutdown", n)
		}
	})
}

// stubborn ignores cancellation for linger before returning.
func stubborn(name string, linger time.Duration, shutdown time.Duration) ChildSpec {
	return ChildSpec{Name: name, Shutdown: shutdown, Start: func(ctx context.Context) error {
		<-ctx.Done()
		time.Sleep(linger)
		return ctx.Err()
	}}
}

func TestShutdownTimeoutAbandonsStuckChild(t *testing.T) {
	for _, tc := range []struct {
		name     string
		shutdown time.Duration
		want     time.Duration
	}{
		{"explicit", 2 * time.Second, 2 * time.Second},
		{"default", 0, DefaultShutdown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k, rec := newKids(), &recorder{}
				h := start(Spec{OnEvent: rec.on}, k.spec("a", Permanent), stubborn("stuck", time.Hour, tc.shutdown), k.spec("c", Permanent))
				k.take("")
				t0 := time.Now()
				if err := h.stop(); !errors.Is(err, errStop) {
					t.Fatalf("Run = %v", err)
				}
				if d := time.Since(t0); d != tc.want {
					t.Errorf("Run returned after %s, want %s", d, tc.want)
				}
				eq(t, "stopped", k.take("stop"), []string{"stop c", "stop a"})
				eq(t, "trace", rec.trace(EventExited, EventStuck), []string{"exited c", "stuck stuck", "exited a"})
				if e := rec.find(t, EventStuck, "stuck"); e.Err == nil {
					t.Error("stuck event without an error")
				}
				time.Sleep(time.Hour) // let the abandoned child end before the bubble does
			})
		})
	}
}

func TestStuckSiblingDuringRestartIsAbandoned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, rec := newKids(), &recorder{}
		slow := stubborn("slow", 10*time.Second, time.Second)
		h := start(Spec{Strategy: OneForAll, OnEvent: rec.on}, slow, k.spec("b", Permanent))
		k.exit("b", errBoom)
		if n := len(rec.trace(EventStuck)); n != 0 {
			t.Fatalf("stuck reported before the shutdown timeout")
		}
		time.Sleep(time.Second) // slow's shutdown timeout
		synctest.Wait()
		eq(t, "trace", rec.trace(EventStuck, EventStarted)[2:], []string{"stuck slow", "started slow", "started b"})
		time.Sleep(20 * time.Second) // the abandoned run of slow returns late
		synctest.Wait()
		if n := rec.count(EventExited, "slow"); n != 0 {
			t.Errorf("late exit of an abandoned child reported %d times", n)
		}
		eq(t, "running", h.running(t), []string{"slow", "b"})
		h.stop()
		time.Sleep(time.Hour)
	})
}

func TestIsShutdown(t *testing.T) {
	r := errors.New("reason")
	s := Shutdown(r)
	if !IsShutdown(s) || !IsShutdown(errors.Join(errBoom, s)) || IsShutdown(r) || IsShutdown(nil) {
		t.Error("IsShutdown misclassifies")
	}
	if s.Error() != "reason" || !errors.Is(s, r) {
		t.Errorf("Shutdown(r) = %q, not wrapping r", s)
	}
}

func TestEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, rec := newKids(), &recorder{}
		t0 := time.Now()
		h := start(Spec{Name: "sup", OnEvent: rec.on}, k.spec("a", Permanent))
		k.exit("a", errBoom)
		time.Sleep(time.Second)
		k.exit("a", errBoom)
		h.stop()
		want := []struct {
			kind     EventKind
			child    string
			err      error
			restarts int
			at       time.Duration
		}{
			{EventSupervisorStarted, "", nil, 0, 0},
			{EventStarted, "a", nil, 0, 0},
			{EventExited, "a", errBoom, 0, 0},
			{EventStarted, "a", nil, 1, 0},
			{EventRestarted, "a", nil, 1, 0},
			{EventExited, "a", errBoom, 1, time.Second},
			{EventStarted, "a", nil, 2, time.Second},
			{EventRestarted, "a", nil, 2, time.Second},
			{EventExited, "a", ErrShutdown, 2, time.Second},
			{EventSupervisorShutdown, "", errStop, 2, time.Second},
		}
		got := rec.events()
		if len(got) != len(want) {
			t.Fatalf("events = %v", rec.trace(got[0].Kind, EventStarted, EventExited, EventRestarted, EventSupervisorShutdown))
		}
		for i, w := range want {
			g := got[i]
			if g.Kind != w.kind || g.Supervisor != "sup" || g.Child != w.child || !errors.Is(g.Err, w.err) ||
				(w.err == nil && g.Err != nil) || g.Restarts != w.restarts || !g.Time.Equal(t0.Add(w.at)) {
				t.Errorf("event %d = %+v, want %+v", i, g, w)
			}
		}
	})
}

func TestCallsOutsideRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newKids()
		h := start(Spec{Strategy: SimpleOneForOne})
		canceled, cancel := context.WithCancelCause(t.Context())
		cancel(errBoom)
		for range 20 { // not left to a select between a ready Run and a done ctx
			if err := h.sup.StartChild(canceled, k.spec("w", Permanent)); !errors.Is(err, errBoom) {
				t.Errorf("StartChild(canceled ctx) = %v, want its cause", err)
				break
			}
		}
		synctest.Wait()
		if n := k.startsOf("w"); n != 0 {
			t.Errorf("a canceled StartChild started the child %d times", n)
		}
		h.stop()

		idle := New(Spec{}) // Run not called: StartChild waits until ctx ends
		waiting, stop := context.WithTimeout(t.Context(), time.Second)
		defer stop()
		if err := idle.StartChild(waiting, k.spec("w", Permanent)); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("StartChild without Run = %v, want the deadline", err)
		}
		if err := h.sup.StartChild(t.Context(), k.spec("w", Permanent)); !errors.Is(err, ErrNotRunning) {
			t.Errorf("StartChild after Run = %v, want ErrNotRunning", err)
		}
		if _, err := h.sup.running(t.Context()); !errors.Is(err, ErrNotRunning) {
			t.Errorf("Running after Run = %v, want ErrNotRunning", err)
		}
	})
}
