package supervisor

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
)

// Strategies and restart types.

func TestStrategyString(t *testing.T) {
	for s, want := range map[Strategy]string{
		OneForOne:       "one_for_one",
		RestForOne:      "rest_for_one",
		OneForAll:       "one_for_all",
		SimpleOneForOne: "simple_one_for_one",
	} {
		if got := s.String(); got != want {
			t.Errorf("Strategy(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}

func TestOneForOneRestartsOnlyFailedChild(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, rec := newKids(), &recorder{}
		h := start(Spec{Name: "s", Strategy: OneForOne, OnEvent: rec.on},
			k.spec("a", Permanent), k.spec("b", Permanent), k.spec("c", Permanent))
		eq(t, "running", h.running(t), []string{"a", "b", "c"})
		k.take("")

		k.exit("b", errBoom)
		eq(t, "log", k.take(""), []string{"exit b", "start b"})
		eq(t, "starts", []int{k.startsOf("a"), k.startsOf("b"), k.startsOf("c")}, []int{1, 2, 1})
		eq(t, "restarted", rec.trace(EventRestarted), []string{"restarted b"})
		eq(t, "running", h.running(t), []string{"a", "b", "c"})
		if err := h.stop(); !errors.Is(err, errStop) {
			t.Fatalf("Run = %v, want %v", err, errStop)
		}
	})
}

func TestRestForOne(t *testing.T) {
	for _, tc := range []struct {
		fail    string
		stopped []string // by the supervisor, in this order
		starts  []int    // of a, b, c, d
	}{
		{"a", []string{"stop d", "stop c", "stop b"}, []int{2, 2, 2, 2}},
		{"b", []string{"stop d", "stop c"}, []int{1, 2, 2, 2}},
		{"d", nil, []int{1, 1, 1, 2}},
	} {
		t.Run(tc.fail, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k, rec := newKids(), &recorder{}
				h := start(Spec{Name: "s", Strategy: RestForOne, OnEvent: rec.on},
					k.spec("a", Permanent), k.spec("b", Permanent), k.spec("c", Permanent), k.spec("d", Permanent))
				k.take("")
				n := len(rec.trace(EventStarted))

				k.exit(tc.fail, errBoom)
				eq(t, "stopped", k.take("stop"), tc.stopped)
				eq(t, "starts", []int{k.startsOf("a"), k.startsOf("b"), k.startsOf("c"), k.startsOf("d")}, tc.starts)
				var want []string
				for i, name := range []string{"a", "b", "c", "d"} {
					if tc.starts[i] == 2 {
						want = append(want, "started "+name)
					}
				}
				eq(t, "restart order", rec.trace(EventStarted)[n:], want)
				eq(t, "running", h.running(t), []string{"a", "b", "c", "d"})
				if tc.stopped != nil && !errors.Is(k.causeOf("c"), ErrShutdown) {
					t.Errorf("c's cause = %v, want ErrShutdown", k.causeOf("c"))
				}
				h.stop()
			})
		})
	}
}

func TestOneForAllStopsReverseRestartsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, rec := newKids(), &recorder{}
		h := start(Spec{Name: "s", Strategy: OneForAll, OnEvent: rec.on},
			k.spec("a", Permanent), k.spec("b", Permanent), k.spec("c", Permanent))
		k.take("")

		k.exit("b", errBoom)
		eq(t, "stopped", k.take("stop"), []string{"stop c", "stop a"})
		eq(t, "exited", rec.trace(EventExited), []string{"exited b", "exited c", "exited a"})
		eq(t, "started", rec.trace(EventStarted)[3:], []string{"started a", "started b", "started c"})
		eq(t, "restarted", rec.trace(EventRestarted), []string{"restarted a", "restarted b", "restarted c"})
		for _, e := range rec.events()[1:] {
			if e.Kind == EventExited && e.Child != "b" && !(IsShutdown(e.Err) && errors.Is(e.Err, ErrShutdown)) {
				t.Errorf("exited %s: Err = %v, want Shutdown(ErrShutdown)", e.Child, e.Err)
			}
		}
		eq(t, "running", h.running(t), []string{"a", "b", "c"})
		h.stop()
	})
}

func TestOneForAllRestartsChildrenThatEndedNormally(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newKids()
		h := start(Spec{Strategy: OneForAll}, k.spec("a", Transient), k.spec("b", Permanent))
		k.exit("a", nil)
		eq(t, "running", h.running(t), []string{"b"})
		k.exit("b", errBoom)
		eq(t, "running", h.running(t), []string{"a", "b"})
		eq(t, "starts", []int{k.startsOf("a"), k.startsOf("b")}, []int{2, 2})
		h.stop()
	})
}

func TestSimpleOneForOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, rec := newKids(), &recorder{}
		h := start(Spec{Name: "pool", Strategy: SimpleOneForOne, OnEvent: rec.on}, k.spec("template", Permanent))
		if n := k.startsOf("template"); n != 0 {
			t.Fatalf("Run started %d children, want none", n)
		}
		eq(t, "running", h.running(t), nil)

		for _, c := range []ChildSpec{k.spec("w1", Temporary), k.spec("w2", Permanent), k.spec("w3", Transient)} {
			if err := h.sup.StartChild(t.Context(), c); err != nil {
				t.Fatalf("StartChild(%s): %v", c.Name, err)
			}
		}
		synctest.Wait()
		eq(t, "running", h.running(t), []string{"w1", "w2", "w3"})

		k.exit("w1", nil) // ended: forgotten
		eq(t, "running", h.running(t), []string{"w2", "w3"})
		k.exit("w2", errBoom) // restarted alone, in place
		eq(t, "running", h.running(t), []string{"w2", "w3"})
		eq(t, "restarted", rec.trace(EventRestarted), []string{"restarted w2"})
		k.exit("w3", Shutdown(errBoom)) // ended: forgotten
		eq(t, "running", h.running(t), []string{"w2"})
		eq(t, "starts", []int{k.startsOf("w1"), k.startsOf("w2"), k.startsOf("w3")}, []int{1, 2, 1})
		h.stop()
	})
}

func TestRestartTypes(t *testing.T) {
	for _, tc := range []struct {
		restart Restart
		exit    error
		again   bool
	}{
		{Permanent, nil, true},
		{Permanent, errBoom, true},
		{Permanent, Shutdown(errBoom), true},
		{Transient, errBoom, true},
		{Transient, nil, false},
		{Transient, Shutdown(errBoom), false},
		{Transient, fmt.Errorf("wrapped: %w", Shutdown(errBoom)), false},
		{Temporary, errBoom, false},
		{Temporary, nil, false},
	} {
		t.Run(fmt.Sprintf("%d_%v", tc.restart, tc.exit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k, rec := newKids(), &recorder{}
				h := start(Spec{OnEvent: rec.on}, k.spec("keep", Permanent), k.spec("x", tc.restart))
				k.exit("x", tc.exit)
				want, running := 1, []string{"keep"}
				if tc.again {
					want, running = 2, []string{"keep", "x"}
				}
				if got := k.startsOf("x"); got != want {
					t.Errorf("x started %d times, want %d", got, want)
				}
				eq(t, "running", h.running(t), running)
				if e := rec.find(t, EventExited, "x"); e.Err != tc.exit {
					t.Errorf("exited Err = %v, want %v", e.Err, tc.exit)
				}
				if ended, err := h.returned(); ended {
					t.Fatalf("Run returned %v", err)
				}
				h.stop()
			})
		})
	}
}

func TestTemporaryDroppedBySiblingRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newKids()
		h := start(Spec{Strategy: RestForOne}, k.spec("a", Permanent), k.spec("b", Permanent), k.spec("tmp", Temporary))
		k.exit("b", errBoom)
		eq(t, "stopped", k.take("stop"), []string{"stop tmp"})
		eq(t, "running", h.running(t), []string{"a", "b"})
		k.exit("b", errBoom)
		if n := k.startsOf("tmp"); n != 1 {
			t.Errorf("tmp started %d times, want 1", n)
		}
		h.stop()
	})
	synctest.Test(t, func(t *testing.T) {
		k := newKids()
		h := start(Spec{Strategy: OneForAll}, k.spec("tmp", Temporary), k.spec("b", Permanent), k.spec("c", Permanent))
		k.exit("c", errBoom)
		eq(t, "stopped", k.take("stop"), []string{"stop b", "stop tmp"})
		eq(t, "running", h.running(t), []string{"b", "c"})
		k.exit("b", errBoom)
		eq(t, "running", h.running(t), []string{"b", "c"})
		if n := k.startsOf("tmp"); n != 1 {
			t.Errorf("tmp started %d times, want 1", n)
		}
		h.stop()
	})
}
