package supervisor

import "time"

// EventKind names what happened.
type EventKind string

// Event kinds; the same names reach logs, metrics and `bot observe`.
const (
	EventStarted            EventKind = "started"
	EventExited             EventKind = "exited"
	EventRestarted          EventKind = "restarted"
	EventPanicked           EventKind = "panicked"
	EventHeartbeatMissed    EventKind = "heartbeat_missed"
	EventStalled            EventKind = "stalled"
	EventStuck              EventKind = "stuck" // did not stop within its shutdown timeout
	EventIntensityExceeded  EventKind = "intensity_exceeded"
	EventNeedsIntervention  EventKind = "needs_intervention"
	EventQueuePaused        EventKind = "queue_paused"
	EventSupervisorStarted  EventKind = "supervisor_started"
	EventSupervisorShutdown EventKind = "supervisor_shutdown"
)

// Event is one thing a supervisor saw.
type Event struct {
	Time       time.Time
	Kind       EventKind
	Supervisor string
	Child      string
	Err        error
	Restarts   int // restarts within the period, for restarted and intensity events
}

// emit sends e to the spec's sink. OnEvent may be called from a child's
// watchdog goroutine as well as the supervisor's, so sinks must be safe
// for concurrent use.
func (s *Supervisor) emit(kind EventKind, child string, err error) {
	if s.spec.OnEvent == nil {
		return
	}
	s.spec.OnEvent(Event{Time: s.clk.Now(), Kind: kind, Supervisor: s.spec.Name, Child: child, Err: err, Restarts: s.restarts.count(s.clk.Now())})
}
