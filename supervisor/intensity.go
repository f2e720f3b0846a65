package supervisor

import (
	"sync"
	"time"
)

// restarts is OTP's restart-intensity record: the times of recent
// restarts in a ring of intensity+1 slots. A restart is allowed while the
// restarts within the period — inclusive: one exactly Period ago still
// counts — number at most the intensity.
type restarts struct {
	mu     sync.Mutex // read by emit from watchdog goroutines
	max    int
	period time.Duration
	ring   []time.Time
	next   int
	n      int
}

func newRestarts(intensity int, period time.Duration) *restarts {
	return &restarts{max: intensity, period: period, ring: make([]time.Time, intensity+1)}
}

// add records a restart at now and reports whether it is within intensity.
func (r *restarts) add(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ring[r.next] = now
	r.next = (r.next + 1) % len(r.ring)
	r.n = min(r.n+1, len(r.ring))
	return r.countLocked(now) <= r.max
}

// reset forgets all restarts.
func (r *restarts) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next, r.n = 0, 0
}

// count is the number of restarts within the period ending at now.
func (r *restarts) count(now time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.countLocked(now)
}

func (r *restarts) countLocked(now time.Time) int {
	c := 0
	for i := range r.n {
		if now.Sub(r.ring[i]) <= r.period {
			c++
		}
	}
	return c
}
