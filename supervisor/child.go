package supervisor

import (
	"context"
	"errors"
	"time"
)

// child is one run of a slot's Start function.
type child struct {
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when Start has returned
	over   chan struct{} // the done of the Run that started it
	beats  *beats
}

// beats carries a child's liveness signals to its watchdog.
type beats struct {
	beat     chan struct{}
	progress chan struct{}
}

type beatsKey struct{}

// Beat tells the supervisor of the child running under ctx that it is
// alive (an agent waiting on a long model reply). It never blocks and does
// nothing outside a supervised child.
func Beat(ctx context.Context) { signal(ctx, func(b *beats) chan struct{} { return b.beat }) }

// Progress tells the supervisor that the child moved forward; it also
// counts as a heartbeat.
func Progress(ctx context.Context) {
	signal(ctx, func(b *beats) chan struct{} { return b.progress })
}

func signal(ctx context.Context, ch func(*beats) chan struct{}) {
	b, ok := ctx.Value(beatsKey{}).(*beats)
	if !ok {
		return
	}
	select {
	case ch(b) <- struct{}{}:
	default:
	}
}

// start launches slot i's child in its own goroutine.
func (s *Supervisor) start(i int) {
	sl := s.slots[i]
	sl.ended = false
	ctx, cancel := context.WithCancelCause(s.base)
	c := &child{cancel: cancel, done: make(chan struct{}), over: s.done, beats: &beats{beat: make(chan struct{}, 1), progress: make(chan struct{}, 1)}}
	ctx = context.WithValue(ctx, beatsKey{}, c.beats)
	sl.cur = c
	s.emit(EventStarted, sl.spec.Name, nil)
	if sl.spec.Heartbeat > 0 || sl.spec.Stall > 0 {
		go s.watch(ctx, sl.spec, c)
	}
	go s.run(ctx, sl.spec, c)
}

// run calls Start, turning a panic into a *PanicError and a watchdog's
// cancellation into its *StallError, then reports the exit.
func (s *Supervisor) run(ctx context.Context, spec ChildSpec, c *child) {
	err := s.call1(ctx, spec)
	if err != nil && ctx.Err() != nil {
		var se *StallError
		if cause := context.Cause(ctx); errors.As(cause, &se) {
			err = se
		}
	}
	c.cancel(nil) // stop the watchdog
	close(c.done)
	select {
	case s.exits <- exit{c: c, err: err}:
	case <-c.over:
	}
}

func (s *Supervisor) call1(ctx context.Context, spec ChildSpec) (err error) {
	defer func() {
		if r := recover(); r != nil {
			pe := NewPanicError(r)
			s.emit(EventPanicked, spec.Name, pe)
			err = pe
		}
	}()
	return spec.Start(ctx)
}

// watch cancels the child when its heartbeat or progress stops.
func (s *Supervisor) watch(ctx context.Context, spec ChildSpec, c *child) {
	hb, st := s.timer(spec.Heartbeat), s.timer(spec.Stall)
	defer func() { stop(hb); stop(st) }()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.beats.beat:
			stop(hb)
			hb = s.timer(spec.Heartbeat)
		case <-c.beats.progress:
			stop(hb)
			stop(st)
			hb, st = s.timer(spec.Heartbeat), s.timer(spec.Stall)
		case <-timerC(hb):
			e := &StallError{Child: spec.Name, Kind: "heartbeat", After: spec.Heartbeat}
			s.emit(EventHeartbeatMissed, spec.Name, e)
			c.cancel(e)
			return
		case <-timerC(st):
			e := &StallError{Child: spec.Name, Kind: "stall", After: spec.Stall}
			s.emit(EventStalled, spec.Name, e)
			c.cancel(e)
			return
		}
	}
}

func (s *Supervisor) timer(d time.Duration) Timer {
	if d <= 0 {
		return nil
	}
	return s.clk.NewTimer(d)
}

func stop(t Timer) {
	if t != nil {
		t.Stop()
	}
}

// timerC is nil (blocks forever) for an unset timer.
func timerC(t Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C()
}
