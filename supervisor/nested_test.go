package supervisor

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// Nested supervisors: a child whose Start is another supervisor's Run.

// innerStart returns a Start for a supervisor of w allowing one restart a
// minute, built afresh for each start or reused across starts.
func innerStart(k *kids, rec *recorder, reuse bool) func(context.Context) error {
	build := func() *Supervisor {
		return New(Spec{Name: "inner", Intensity: 1, Period: time.Minute, OnEvent: rec.on}, k.spec("w", Permanent))
	}
	if reuse {
		return build().Run
	}
	return func(ctx context.Context) error { return build().Run(ctx) }
}

func TestNestedInnerTripIsRestartedByOuter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reuse bool
	}{{"fresh", false}, {"reused", true}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k, rec := newKids(), &recorder{}
				h := start(Spec{Name: "outer", OnEvent: rec.on},
					ChildSpec{Name: "inner", Start: innerStart(k, rec, tc.reuse)}, k.spec("x", Permanent))
				k.exit("w", errBoom)
				k.exit("w", errBoom) // the inner's 2nd restart in a minute: it gives up

				e := rec.find(t, EventExited, "inner")
				var ie *IntensityExceeded
				if e.Supervisor != "outer" || !errors.As(e.Err, &ie) || ie.Supervisor != "inner" || ie.Child != "w" {
					t.Fatalf("outer saw inner exit with %+v", e)
				}
				if r := rec.find(t, EventRestarted, "inner"); r.Supervisor != "outer" || r.Restarts != 1 {
					t.Errorf("restarted event = %+v", r)
				}
				eq(t, "outer running", h.running(t), []string{"inner", "x"})
				eq(t, "starts of w, x", []int{k.startsOf("w"), k.startsOf("x")}, []int{3, 1})

				// The restarted inner starts with an empty restart history.
				k.exit("w", errBoom)
				if n := rec.count(EventIntensityExceeded, "w"); n != 1 {
					t.Errorf("inner gave up %d times, want 1", n)
				}
				if n := k.startsOf("w"); n != 4 {
					t.Errorf("w started %d times, want 4", n)
				}
				if n := len(rec.trace(EventPanicked)); n != 0 {
					t.Errorf("%d panics", n)
				}
				k.take("")
				if err := h.stop(); !errors.Is(err, errStop) {
					t.Fatalf("outer Run = %v", err)
				}
				eq(t, "stopped", k.take("stop"), []string{"stop x", "stop w"})
				if !errors.Is(k.causeOf("w"), ErrShutdown) {
					t.Errorf("w saw %v, want ErrShutdown", k.causeOf("w"))
				}
			})
		})
	}
}

func TestNestedInnerTripTripsOuter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, rec := newKids(), &recorder{}
		h := start(Spec{Name: "outer", Intensity: 0, Period: time.Minute, OnEvent: rec.on},
			k.spec("x", Permanent), ChildSpec{Name: "inner", Start: innerStart(k, rec, false)})
		k.take("")
		k.exit("w", errBoom)
		k.exit("w", errBoom)

		err := h.result()
		var outer *IntensityExceeded
		if !errors.As(err, &outer) || outer.Supervisor != "outer" || outer.Child != "inner" {
			t.Fatalf("Run = %v, want the outer's IntensityExceeded for inner", err)
		}
		inner, ok := outer.Last.(*IntensityExceeded)
		if !ok || inner.Supervisor != "inner" || inner.Child != "w" || !errors.Is(err, errBoom) {
			t.Errorf("Last = %v, want the inner's IntensityExceeded for w", outer.Last)
		}
		eq(t, "log", k.take(""), []string{"exit w", "start w", "exit w", "stop x"})
	})
}

func TestRunAgainStartsAfresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newKids()
		sup := New(Spec{Intensity: 1, Period: time.Minute}, k.spec("a", Permanent))
		for run := 1; run <= 2; run++ {
			errc := make(chan error, 1)
			go func() { errc <- sup.Run(t.Context()) }()
			synctest.Wait()
			if err := sup.StartChild(t.Context(), k.spec("dyn", Permanent)); err != nil {
				t.Fatalf("run %d: StartChild: %v", run, err)
			}
			if names, _ := sup.running(t.Context()); len(names) != 2 {
				t.Errorf("run %d: running %v, want a and dyn", run, names)
			}
			k.exit("a", errBoom)
			k.exit("a", errBoom)
			var ie *IntensityExceeded
			if err := <-errc; !errors.As(err, &ie) {
				t.Fatalf("run %d: Run = %v", run, err)
			}
			if err := sup.StartChild(t.Context(), k.spec("late", Permanent)); !errors.Is(err, ErrNotRunning) {
				t.Errorf("between runs: StartChild = %v, want ErrNotRunning", err)
			}
		}
		eq(t, "starts of a, dyn", []int{k.startsOf("a"), k.startsOf("dyn")}, []int{4, 2})
	})
}
