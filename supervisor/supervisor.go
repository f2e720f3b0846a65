package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Supervisor runs children and restarts them as its spec says. One
// goroutine — the one in Run — owns all of its state; children and callers
// talk to it through channels.
type Supervisor struct {
	spec     Spec
	clk      Clock
	restarts *restarts
	children []ChildSpec // as given to New: what each Run starts from
	slots    []*slot
	base     context.Context // children's parent: values of Run's ctx, not its cancel
	exits    chan exit
	cmds     chan func()
	mu       sync.Mutex    // guards done, which a new Run replaces once closed
	done     chan struct{} // closed when Run returns
	reason   error         // the first Shutdown reason of a significant child
}

// slot is one child's place in start order; cur is nil while not running.
type slot struct {
	spec  ChildSpec
	cur   *child
	ended bool // exited and not restarted
}

type exit struct {
	c   *child
	err error
}

// ErrNotRunning is StartChild's answer once Run has returned.
var ErrNotRunning = errors.New("supervisor: not running")

// New builds a supervisor for the given children, started in order by Run.
func New(spec Spec, children ...ChildSpec) *Supervisor {
	if spec.Period <= 0 {
		spec.Intensity, spec.Period = DefaultIntensity, DefaultPeriod
	}
	if spec.Clock == nil {
		spec.Clock = RealClock()
	}
	s := &Supervisor{spec: spec, clk: spec.Clock, children: children, exits: make(chan exit), cmds: make(chan func()), done: make(chan struct{})}
	s.restarts = newRestarts(max(spec.Intensity, 0), spec.Period)
	return s
}

// Run starts the children and supervises them until ctx ends (children are
// stopped in reverse start order and ctx's cause returned), restart
// intensity is exceeded (*IntensityExceeded), or auto-shutdown applies (nil,
// or the first Shutdown reason a significant child gave).
//
// Run may be called again after it returned — a supervisor restarted as
// another's child (Start: inner.Run) — and starts afresh from New's
// children with an empty restart history, as an OTP supervisor's init does.
func (s *Supervisor) Run(ctx context.Context) error {
	defer close(s.begin())
	s.base = context.WithoutCancel(ctx)
	s.emit(EventSupervisorStarted, "", nil)
	for i := range s.slots {
		s.start(i)
	}
	for {
		if s.autoShutdownDue() {
			s.terminateAll()
			s.emit(EventSupervisorShutdown, "", s.reason)
			return s.reason
		}
		select {
		case <-ctx.Done():
			s.terminateAll()
			err := context.Cause(ctx)
			s.emit(EventSupervisorShutdown, "", err)
			return err
		case e := <-s.exits:
			if err := s.handleExit(e); err != nil {
				return err
			}
		case cmd := <-s.cmds:
			cmd()
		}
	}
}

// begin readies the state of one Run and returns its done channel.
func (s *Supervisor) begin() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done: // a previous Run returned
		s.done = make(chan struct{})
	default:
	}
	s.restarts.reset()
	s.reason = nil
	s.slots = nil
	if s.spec.Strategy != SimpleOneForOne {
		for _, c := range s.children {
			s.slots = append(s.slots, &slot{spec: c})
		}
	}
	return s.done
}

// StartChild adds a child and starts it (OTP's start_child; the way
// SimpleOneForOne supervisors get children). It waits for Run to take it.
func (s *Supervisor) StartChild(ctx context.Context, c ChildSpec) error {
	return s.call(ctx, func() {
		s.slots = append(s.slots, &slot{spec: c})
		s.start(len(s.slots) - 1)
	})
}

func (s *Supervisor) call(ctx context.Context, fn func()) error {
	if ctx.Err() != nil { // not left to select's random choice against a ready Run
		return context.Cause(ctx)
	}
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	ran := make(chan struct{})
	select {
	case s.cmds <- func() { fn(); close(ran) }:
		<-ran
		return nil
	case <-done:
		return ErrNotRunning
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// handleExit applies restart type, intensity and strategy to one exit.
func (s *Supervisor) handleExit(e exit) error {
	i := s.indexOf(e.c)
	if i < 0 {
		return nil // a child already stopped by the supervisor, reporting late
	}
	sl := s.slots[i]
	sl.cur = nil
	s.emit(EventExited, sl.spec.Name, e.err)
	if !restartable(sl.spec.Restart, e.err) {
		sl.ended = true
		if sl.spec.Significant && s.reason == nil && e.err != nil {
			s.reason = e.err
		}
		s.forgetEnded(i)
		return nil
	}
	if !s.restarts.add(s.clk.Now()) {
		ie := &IntensityExceeded{Supervisor: s.spec.Name, Child: sl.spec.Name, Restarts: s.spec.Intensity, Period: s.spec.Period, Last: e.err}
		s.emit(EventIntensityExceeded, sl.spec.Name, ie)
		s.terminateAll()
		s.emit(EventSupervisorShutdown, "", ie)
		return ie
	}
	s.restart(i)
	return nil
}

func restartable(r Restart, err error) bool {
	switch r {
	case Permanent:
		return true
	case Transient:
		return err != nil && !IsShutdown(err)
	}
	return false
}

// restart applies the strategy after slot i's child exited. As in OTP,
// the children stopped alongside it are started again in order unless
// temporary, including ones that had ended normally.
func (s *Supervisor) restart(i int) {
	from := i
	switch s.spec.Strategy {
	case OneForOne, SimpleOneForOne:
		s.start(i)
		s.emit(EventRestarted, s.slots[i].spec.Name, nil)
		return
	case OneForAll:
		from = 0
	}
	for j := len(s.slots) - 1; j >= from; j-- {
		if j != i {
			s.terminate(s.slots[j])
		}
	}
	var keep []*slot
	for j, sl := range s.slots {
		if j >= from && j != i && sl.spec.Restart == Temporary {
			continue
		}
		keep = append(keep, sl)
	}
	s.slots = keep
	for j := from; j < len(s.slots); j++ {
		if s.slots[j].cur == nil {
			s.start(j)
			s.emit(EventRestarted, s.slots[j].spec.Name, nil)
		}
	}
}

func (s *Supervisor) indexOf(c *child) int {
	for i, sl := range s.slots {
		if sl.cur == c {
			return i
		}
	}
	return -1
}

// forgetEnded drops ended children of a SimpleOneForOne supervisor, whose
// children are not restarted by siblings and would otherwise accumulate.
func (s *Supervisor) forgetEnded(i int) {
	if s.spec.Strategy == SimpleOneForOne && !s.slots[i].spec.Significant {
		s.slots = append(s.slots[:i], s.slots[i+1:]...)
	}
}

func (s *Supervisor) autoShutdownDue() bool {
	any, all, seen := false, true, false
	for _, sl := range s.slots {
		if !sl.spec.Significant {
			continue
		}
		seen = true
		any = any || sl.ended
		all = all && sl.ended
	}
	switch s.spec.AutoShutdown {
	case AnySignificant:
		return any
	case AllSignificant:
		return seen && all
	}
	return false
}

// terminateAll stops every running child in reverse start order.
func (s *Supervisor) terminateAll() {
	for j := len(s.slots) - 1; j >= 0; j-- {
		s.terminate(s.slots[j])
	}
}

// terminate cancels a child and waits up to its shutdown timeout. A child
// that does not return in time is reported and abandoned: its goroutine
// may linger, but the supervisor does not hang on it.
func (s *Supervisor) terminate(sl *slot) {
	c := sl.cur
	if c == nil {
		return
	}
	sl.cur = nil
	c.cancel(ErrShutdown)
	d := sl.spec.Shutdown
	if d <= 0 {
		d = DefaultShutdown
	}
	t := s.clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.done:
		s.emit(EventExited, sl.spec.Name, Shutdown(ErrShutdown))
	case <-t.C():
		s.emit(EventStuck, sl.spec.Name, fmt.Errorf("%s did not stop within %s of shutdown", sl.spec.Name, d))
	}
}
