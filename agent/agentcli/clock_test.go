package agentcli

import (
	"sync"
	"time"

	"github.com/warden-bot/warden/supervisor"
)

// handClock is a supervisor.Clock that moves only when the test moves it,
// so a stall test asks "was progress seen between these two instants" and
// never "did the machine keep up with a wall-clock window".
type handClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*handTimer
	made   chan struct{} // a token after each NewTimer: the watchdog (re)armed
}

type handTimer struct {
	clk       *handClock
	at        time.Time
	d         time.Duration
	c         chan time.Time
	stopped   bool
	triggered bool
}

func newHandClock() *handClock {
	return &handClock{now: time.Unix(1_700_000_000, 0), made: make(chan struct{}, 1)}
}

func (c *handClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *handClock) NewTimer(d time.Duration) supervisor.Timer {
	c.mu.Lock()
	t := &handTimer{clk: c, at: c.now.Add(d), d: d, c: make(chan time.Time, 1)}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	select {
	case c.made <- struct{}{}:
	default:
	}
	return t
}

func (t *handTimer) C() <-chan time.Time { return t.c }

func (t *handTimer) Stop() bool {
	t.clk.mu.Lock()
	defer t.clk.mu.Unlock()
	was := !t.stopped && !t.triggered
	t.stopped = true
	return was
}

// Advance moves the clock and fires every timer now due.
func (c *handClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for _, t := range c.timers {
		if !t.stopped && !t.triggered && !t.at.After(c.now) {
			t.triggered = true
			t.c <- c.now
		}
	}
}

// armedNow reports a live timer of duration d armed at the current instant.
func (c *handClock) armedNow(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.timers {
		if t.d == d && !t.stopped && !t.triggered && t.at.Equal(c.now.Add(d)) {
			return true
		}
	}
	return false
}

// waitArmed reports whether a timer of duration d gets armed at the
// current instant: with the clock held still, only a signal that came after
// the last Advance can arm it. A re-arm takes the watchdog goroutine
// microseconds; the wall-clock bound is there only to fail a broken build
// with a message instead of hanging, never to pass a working one.
func (c *handClock) waitArmed(d time.Duration) bool {
	give := time.NewTimer(30 * time.Second)
	defer give.Stop()
	for !c.armedNow(d) {
		select {
		case <-c.made:
		case <-give.C:
			return c.armedNow(d)
		}
	}
	return true
}
