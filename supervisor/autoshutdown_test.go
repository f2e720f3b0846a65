package supervisor

import (
	"errors"
	"testing"
	"testing/synctest"
)

// Auto-shutdown after significant children end.

func TestAutoShutdown(t *testing.T) {
	errDone := errors.New("done")
	t.Run("any", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			k, rec := newKids(), &recorder{}
			sig := k.spec("sig", Transient)
			sig.Significant = true
			h := start(Spec{AutoShutdown: AnySignificant, OnEvent: rec.on}, k.spec("a", Permanent), sig, k.spec("c", Permanent))
			k.take("")
			k.exit("sig", Shutdown(errDone))
			err := h.result()
			if !errors.Is(err, errDone) || !IsShutdown(err) {
				t.Fatalf("Run = %v, want Shutdown(%v)", err, errDone)
			}
			eq(t, "stopped", k.take("stop"), []string{"stop c", "stop a"})
			if e := rec.events(); e[len(e)-1].Kind != EventSupervisorShutdown || !errors.Is(e[len(e)-1].Err, errDone) {
				t.Errorf("last event = %+v", e[len(e)-1])
			}
		})
	})
	t.Run("any_nil", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			k := newKids()
			sig := k.spec("sig", Temporary)
			sig.Significant = true
			h := start(Spec{AutoShutdown: AnySignificant}, sig, k.spec("b", Permanent))
			k.exit("sig", nil)
			if err := h.result(); err != nil {
				t.Fatalf("Run = %v, want nil", err)
			}
		})
	})
	t.Run("all", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			k := newKids()
			s1, s2 := k.spec("s1", Transient), k.spec("s2", Transient)
			s1.Significant, s2.Significant = true, true
			h := start(Spec{AutoShutdown: AllSignificant}, s1, s2, k.spec("c", Permanent))
			k.exit("s1", Shutdown(errDone))
			if ended, err := h.returned(); ended {
				t.Fatalf("Run returned %v with a significant child left", err)
			}
			eq(t, "running", h.running(t), []string{"s2", "c"})
			k.exit("s2", Shutdown(errBoom))
			if err := h.result(); !errors.Is(err, errDone) {
				t.Fatalf("Run = %v, want the first reason %v", err, errDone)
			}
		})
	})
	t.Run("all_without_significant_children", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			k := newKids()
			h := start(Spec{AutoShutdown: AllSignificant}, k.spec("a", Temporary))
			k.exit("a", nil)
			if ended, err := h.returned(); ended {
				t.Fatalf("Run returned %v", err)
			}
			h.stop()
		})
	})
	t.Run("never", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			k := newKids()
			sig := k.spec("sig", Transient)
			sig.Significant = true
			h := start(Spec{}, sig, k.spec("b", Permanent))
			k.exit("sig", Shutdown(errDone))
			if ended, err := h.returned(); ended {
				t.Fatalf("Run returned %v", err)
			}
			h.stop()
		})
	})
}
