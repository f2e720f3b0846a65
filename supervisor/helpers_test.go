package supervisor

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
)

// Test doubles shared by the supervision-tree tests. Every test runs inside
// a synctest bubble, so time is fake and synctest.Wait settles goroutines.

var (
	errBoom = errors.New("boom")
	errStop = errors.New("test over")
)

// recorder is an OnEvent sink safe for concurrent use (watchdogs and
// panicking children emit from their own goroutines).
type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func (r *recorder) on(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
}

func (r *recorder) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// trace lists "kind child" for the events of the given kinds, in order.
func (r *recorder) trace(kinds ...EventKind) []string {
	var out []string
	for _, e := range r.events() {
		if slices.Contains(kinds, e.Kind) {
			out = append(out, string(e.Kind)+" "+e.Child)
		}
	}
	return out
}

// find returns the first event of kind for child.
func (r *recorder) find(t *testing.T, kind EventKind, child string) Event {
	t.Helper()
	for _, e := range r.events() {
		if e.Kind == kind && e.Child == child {
			return e
		}
	}
	t.Fatalf("no %s event for %q in %v", kind, child, r.trace(kind))
	return Event{}
}

func (r *recorder) count(kind EventKind, child string) int {
	n := 0
	for _, e := range r.events() {
		if e.Kind == kind && e.Child == child {
			n++
		}
	}
	return n
}

// kids builds children the test controls: each blocks until the test makes
// it exit (exit) or its context ends, and logs what it did.
type kids struct {
	mu     sync.Mutex
	log    []string
	starts map[string]int
	causes map[string]error // context.Cause seen at the last stop
	ch     map[string]chan error
}

func newKids() *kids {
	return &kids{starts: map[string]int{}, causes: map[string]error{}, ch: map[string]chan error{}}
}

func (k *kids) spec(name string, r Restart) ChildSpec {
	ch := make(chan error)
	k.ch[name] = ch
	return ChildSpec{Name: name, Restart: r, Start: func(ctx context.Context) error {
		k.note("start "+name, func() { k.starts[name]++ })
		select {
		case err := <-ch:
			k.note("exit "+name, nil)
			return err
		case <-ctx.Done():
			k.note("stop "+name, func() { k.causes[name] = context.Cause(ctx) })
			return ctx.Err()
		}
	}}
}

func (k *kids) note(s string, f func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.log = append(k.log, s)
	if f != nil {
		f()
	}
}

// exit makes the running incarnation of name return err and lets the
// supervisor react.
func (k *kids) exit(name string, err error) {
	k.ch[name] <- err
	synctest.Wait()
}

// take returns the log so far, filtered to lines starting with prefix
// ("" for all), and clears it.
func (k *kids) take(prefix string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, l := range k.log {
		if len(l) >= len(prefix) && l[:len(prefix)] == prefix {
			out = append(out, l)
		}
	}
	k.log = nil
	return out
}

func (k *kids) startsOf(name string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.starts[name]
}

func (k *kids) causeOf(name string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.causes[name]
}

// harness is a supervisor running in its own goroutine.
type harness struct {
	sup    *Supervisor
	cancel context.CancelCauseFunc
	errc   chan error
	err    error
	ended  bool
}

func start(spec Spec, children ...ChildSpec) *harness {
	ctx, cancel := context.WithCancelCause(context.Background())
	h := &harness{sup: New(spec, children...), cancel: cancel, errc: make(chan error, 1)}
	go func() { h.errc <- h.sup.Run(ctx) }()
	synctest.Wait()
	return h
}

// returned reports whether Run has returned, and with what.
func (h *harness) returned() (bool, error) {
	if !h.ended {
		select {
		case h.err = <-h.errc:
			h.ended = true
		default:
		}
	}
	return h.ended, h.err
}

// result waits for Run to return.
func (h *harness) result() error {
	if !h.ended {
		h.err, h.ended = <-h.errc, true
	}
	return h.err
}

// stop cancels Run's context and returns what Run returned.
func (h *harness) stop() error {
	h.cancel(errStop)
	return h.result()
}

func (h *harness) running(t *testing.T) []string {
	t.Helper()
	names, err := h.sup.running(context.Background())
	if err != nil {
		t.Fatalf("Running: %v", err)
	}
	return names
}

func eq[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// running lists the names of the children running now, in start order;
// only tests ask.
func (s *Supervisor) running(ctx context.Context) ([]string, error) {
	var names []string
	err := s.call(ctx, func() {
		for _, sl := range s.slots {
			if sl.cur != nil {
				names = append(names, sl.spec.Name)
			}
		}
	})
	return names, err
}
