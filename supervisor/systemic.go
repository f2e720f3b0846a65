package supervisor

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Failure is one task that ended for good, as the systemic detector sees it.
type Failure struct {
	Task        string    `json:"task"`  // e.g. owner/repo#12
	Scope       string    `json:"scope"` // where an alert goes, e.g. owner/repo
	Fingerprint string    `json:"fingerprint"`
	At          time.Time `json:"at"`
}

// FailureLog keeps recent terminal failures where every worker sees them.
type FailureLog interface {
	// Record adds f, forgets failures older than since, and returns what is left.
	Record(ctx context.Context, f Failure, since time.Time) ([]Failure, error)
}

// Systemic is the application supervisor's detector: when Threshold
// distinct tasks fail terminally within Window, the fault is probably not
// in any one of them (a model outage, a revoked key, a broken runner), and
// carrying on would only burn budget and spam issues.
type Systemic struct {
	Log       FailureLog
	Threshold int           // distinct tasks; default 3
	Window    time.Duration // default 5 min
	Clock     Clock
}

// Verdict is what Observe concluded.
type Verdict struct {
	Tripped bool
	Recent  []Failure // the failures within the window, oldest first
}

// Observe records a terminal failure and reports whether the threshold is reached.
func (s *Systemic) Observe(ctx context.Context, f Failure) (Verdict, error) {
	clk := s.Clock
	if clk == nil {
		clk = RealClock()
	}
	threshold, window := s.Threshold, s.Window
	if threshold <= 0 {
		threshold = 3
	}
	if window <= 0 {
		window = 5 * time.Minute
	}
	now := clk.Now()
	if f.At.IsZero() {
		f.At = now
	}
	recent, err := s.Log.Record(ctx, f, now.Add(-window))
	if err != nil {
		return Verdict{}, fmt.Errorf("record terminal failure of %s: %w", f.Task, err)
	}
	sort.SliceStable(recent, func(i, j int) bool { return recent[i].At.Before(recent[j].At) })
	tasks := map[string]bool{}
	for _, r := range recent {
		tasks[r.Task] = true
	}
	return Verdict{Tripped: len(tasks) >= threshold, Recent: recent}, nil
}
