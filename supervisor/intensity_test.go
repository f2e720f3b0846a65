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

// Restart intensity and nested supervisors.

func TestDefaultIntensityTripsOnFourthRestart(t *testing.T) {
	// A zero Period means 3 in 60 s, whatever Intensity says.
	for _, intensity := range []int{0, 10} {
		synctest.Test(t, func(t *testing.T) {
			k, rec := newKids(), &recorder{}
			h := start(Spec{Name: "s", Intensity: intensity, OnEvent: rec.on},
				k.spec("a", Permanent), k.spec("b", Permanent), k.spec("c", Permanent))
			for range 3 {
				k.exit("b", errBoom)
				time.Sleep(10 * time.Second)
			}
			if ended, err := h.returned(); ended {
				t.Fatalf("Run returned %v after 3 restarts", err)
			}
			k.take("")
			k.exit("b", errBoom)

			err := h.result()
			var ie *IntensityExceeded
			if !errors.As(err, &ie) {
				t.Fatalf("Run = %v, want *IntensityExceeded", err)
			}
			want := IntensityExceeded{Supervisor: "s", Child: "b", Restarts: DefaultIntensity, Period: DefaultPeriod, Last: errBoom}
			if *ie != want {
				t.Errorf("IntensityExceeded = %+v, want %+v", *ie, want)
			}
			if !errors.Is(err, errBoom) || errors.Unwrap(err) != errBoom {
				t.Errorf("Unwrap = %v, want the last exit %v", errors.Unwrap(err), errBoom)
			}
			if msg := err.Error(); !strings.Contains(msg, "intensity exceeded") || !strings.Contains(msg, "boom") {
				t.Errorf("Error() = %q", msg)
			}
			eq(t, "after the trip", k.take(""), []string{"exit b", "stop c", "stop a"})
			if n := k.startsOf("b"); n != 4 {
				t.Errorf("b started %d times, want 4", n)
			}
			if e := rec.find(t, EventIntensityExceeded, "b"); e.Err != err {
				t.Errorf("intensity_exceeded Err = %v", e.Err)
			}
			if e := rec.events(); e[len(e)-1].Kind != EventSupervisorShutdown || e[len(e)-1].Err != err {
				t.Errorf("last event = %+v", e[len(e)-1])
			}
		})
	}
}

func TestIntensityZeroTripsOnFirstRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newKids()
		h := start(Spec{Intensity: 0, Period: time.Second}, k.spec("t", Transient), k.spec("p", Permanent))
		k.exit("t", nil) // ended normally: no restart, nothing counted
		if ended, err := h.returned(); ended {
			t.Fatalf("Run returned %v", err)
		}
		k.exit("p", nil) // a permanent child is restarted even after nil
		var ie *IntensityExceeded
		if err := h.result(); !errors.As(err, &ie) || ie.Restarts != 0 || ie.Child != "p" || ie.Last != nil {
			t.Fatalf("Run = %#v, want IntensityExceeded for p with no restarts allowed", err)
		}
	})
}

func TestIntensityWindowIsInclusive(t *testing.T) {
	for _, tc := range []struct {
		name string
		gap  time.Duration
		trip bool
	}{
		{"exactly_period", 10 * time.Second, true},
		{"period_plus_1ns", 10*time.Second + time.Nanosecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := newKids()
				h := start(Spec{Intensity: 1, Period: 10 * time.Second}, k.spec("a", Permanent))
				k.exit("a", errBoom)
				time.Sleep(tc.gap)
				k.exit("a", errBoom)
				ended, err := h.returned()
				if ended != tc.trip {
					t.Fatalf("after a restart %s later: Run ended=%v (%v), want %v", tc.gap, ended, err, tc.trip)
				}
				if !tc.trip {
					h.stop()
				}
			})
		})
	}
}

func TestSpacedRestartsAreForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newKids()
		h := start(Spec{}, k.spec("a", Permanent))
		for i := range 10 { // 21 s apart: 3 in any 60 s window, never 4
			k.exit("a", errBoom)
			if ended, err := h.returned(); ended {
				t.Fatalf("restart %d: Run returned %v", i+1, err)
			}
			time.Sleep(21 * time.Second)
		}
		h.stop()
	})
	synctest.Test(t, func(t *testing.T) {
		k := newKids()
		h := start(Spec{}, k.spec("a", Permanent))
		for range 3 { // 20 s apart: the 4th lands exactly 60 s after the 1st
			k.exit("a", errBoom)
			time.Sleep(20 * time.Second)
		}
		k.exit("a", errBoom)
		var ie *IntensityExceeded
		if err := h.result(); !errors.As(err, &ie) {
			t.Fatalf("Run = %v, want IntensityExceeded", err)
		}
	})
}

func TestChildFailingImmediatelyTrips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var starts atomic.Int32
		crash := ChildSpec{Name: "crash", Start: func(context.Context) error { starts.Add(1); return errBoom }}
		t0 := time.Now()
		err := New(Spec{Name: "s"}, crash).Run(t.Context())
		var ie *IntensityExceeded
		if !errors.As(err, &ie) || ie.Child != "crash" || !errors.Is(err, errBoom) {
			t.Fatalf("Run = %v, want IntensityExceeded for crash", err)
		}
		if n := starts.Load(); n != 1+DefaultIntensity {
			t.Errorf("crash started %d times, want %d", n, 1+DefaultIntensity)
		}
		if d := time.Since(t0); d != 0 {
			t.Errorf("took %s of fake time", d)
		}
	})
}
