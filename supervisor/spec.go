package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Strategy is what a supervisor restarts when one child fails (OTP's
// restart strategies).
type Strategy int

// Strategies.
const (
	// OneForOne restarts only the child that exited.
	OneForOne Strategy = iota
	// RestForOne restarts the child and every child started after it.
	RestForOne
	// OneForAll restarts every child.
	OneForAll
	// SimpleOneForOne is OneForOne for dynamically added children of one
	// template (StartChild); none are started by Run.
	SimpleOneForOne
)

var strategyNames = [...]string{"one_for_one", "rest_for_one", "one_for_all", "simple_one_for_one"}

func (s Strategy) String() string { return strategyNames[s] }

// Restart is when a child is restarted (OTP's restart types).
type Restart int

// Restart types.
const (
	// Permanent children are always restarted.
	Permanent Restart = iota
	// Transient children are restarted only after an abnormal exit: an
	// error that is not a Shutdown reason.
	Transient
	// Temporary children are never restarted.
	Temporary
)

// AutoShutdown says when the supervisor stops by itself after significant
// children end (OTP 24's auto_shutdown).
type AutoShutdown int

// AutoShutdown values.
const (
	Never AutoShutdown = iota
	AnySignificant
	AllSignificant
)

// Defaults, as OTP's.
const (
	DefaultIntensity = 3
	DefaultPeriod    = 60 * time.Second
	DefaultShutdown  = 5 * time.Second
)

// Spec configures a supervisor.
type Spec struct {
	Name     string
	Strategy Strategy
	// Intensity restarts are allowed within Period; one more shuts the
	// supervisor down. A zero Period means OTP's default of 3 in 60 s, so
	// an intensity of 0 needs an explicit Period.
	Intensity int
	Period    time.Duration
	// AutoShutdown ends Run when significant children have ended.
	AutoShutdown AutoShutdown
	Clock        Clock
	// OnEvent is told of everything that happens (logs, metrics, pub/sub).
	// It runs on the supervisor's goroutine and must not block.
	OnEvent func(Event)
}

// ChildSpec describes one child.
type ChildSpec struct {
	Name    string
	Start   func(ctx context.Context) error
	Restart Restart
	// Significant children take part in AutoShutdown.
	Significant bool
	// Shutdown is how long a child gets to return after its context is
	// canceled before it is reported as stuck and abandoned.
	Shutdown time.Duration
	// Heartbeat, when set, cancels the child when neither Beat nor Progress
	// was called for that long (a hang).
	Heartbeat time.Duration
	// Stall, when set, cancels the child when Progress was not called for
	// that long (alive but going nowhere).
	Stall time.Duration
}

// Shutdown wraps an exit reason that is not a crash (OTP's {shutdown, R}):
// a transient child returning it is not restarted, and Run reports the
// reason when auto-shutdown follows.
func Shutdown(reason error) error { return &shutdownError{reason} }

type shutdownError struct{ reason error }

func (e *shutdownError) Error() string { return e.reason.Error() }
func (e *shutdownError) Unwrap() error { return e.reason }

// IsShutdown reports whether err is a Shutdown reason.
func IsShutdown(err error) bool {
	var s *shutdownError
	return errors.As(err, &s)
}

// IntensityExceeded is Run's error when restarts came faster than the
// spec allows: the supervisor gave up and stopped its children.
type IntensityExceeded struct {
	Supervisor string
	Child      string
	Restarts   int
	Period     time.Duration
	Last       error // the exit that would have been one restart too many
}

func (e *IntensityExceeded) Error() string {
	return fmt.Sprintf("supervisor %s: restart intensity exceeded (%d restarts within %s), last exit of %s: %v",
		e.Supervisor, e.Restarts, e.Period, e.Child, e.Last)
}

func (e *IntensityExceeded) Unwrap() error { return e.Last }

// StallError is the cause a watchdog cancels a child with. It is a
// transient failure: the child is worth another try.
type StallError struct {
	Child string
	Kind  string // "heartbeat" or "stall"
	After time.Duration
}

func (e *StallError) Error() string {
	if e.Kind == "heartbeat" {
		return fmt.Sprintf("%s missed its heartbeat for %s", e.Child, e.After)
	}
	return fmt.Sprintf("%s stalled: no progress for %s", e.Child, e.After)
}

// Hang marks the error for classification as transient, not canceled.
func (e *StallError) Hang() bool { return true }

// ErrShutdown is the cause a child's context is canceled with when its
// supervisor stops it.
var ErrShutdown = errors.New("supervisor: shutdown")
