package pipeline

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/warden-bot/warden/comments"
)

// Stage names as they appear in the status checklist and in fingerprints.
const (
	StagePlan      = "Plan"
	StageImplement = "Implement"
	StageTest      = "Test"
	StageSecurity  = "Security"
	StageReview    = "Review"
	StageRelease   = "Release"
)

var checklist = []string{StagePlan, StageImplement, StageTest, StageSecurity, StageReview, StageRelease}

// tracker owns the status checklist of one attempt and pushes it to the
// host only when it changed, and at most once per statusInterval: changes
// in between are coalesced into one edit when the interval is up, so a
// fast pipeline costs a few comment edits, not two per stage, and progress
// never approaches GitHub's secondary limits on writes. The final state is
// pushed at once.
type tracker struct {
	host Host
	log  *slog.Logger

	mu     sync.Mutex // the deferred flush runs on a timer goroutine
	s      comments.Status
	last   string
	pushed time.Time
	flush  *time.Timer
}

// statusInterval is the least time between two status comment edits.
const statusInterval = 5 * time.Second

func newTracker(host Host, log *slog.Logger, mode string, attempt int) *tracker {
	s := comments.Status{Mode: mode, Attempt: attempt, State: StateRunning}
	for _, name := range checklist {
		s.Stages = append(s.Stages, comments.StageLine{Name: name, State: "pending"})
	}
	return &tracker{host: host, log: log, s: s}
}

func (t *tracker) stage(ctx context.Context, name, state, note string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.s.Stages {
		if t.s.Stages[i].Name == name {
			t.s.Stages[i].State, t.s.Stages[i].Note = state, note
		}
	}
	t.pushLocked(ctx, false)
}

// setAttempt records the attempt number once it is known.
// setEnvironment shows the commands and image, and their sources.
func (t *tracker) setEnvironment(line string) {
	t.mu.Lock()
	t.s.Environment = line
	t.mu.Unlock()
}

func (t *tracker) setAttempt(n int) {
	t.mu.Lock()
	t.s.Attempt = n
	t.mu.Unlock()
}

// finish marks the attempt's end state; stages still pending or running are
// shown as skipped, or canceled when the attempt was canceled.
func (t *tracker) finish(ctx context.Context, state, note string, pr int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rest := "skipped"
	if state == "canceled" {
		rest = "canceled"
	}
	for i := range t.s.Stages {
		if st := t.s.Stages[i].State; st == "pending" || st == "running" {
			t.s.Stages[i].State = rest
		}
	}
	t.s.State, t.s.Note, t.s.PR = state, note, pr
	if t.flush != nil {
		t.flush.Stop()
		t.flush = nil
	}
	t.pushLocked(ctx, true)
}

func (t *tracker) push(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pushLocked(ctx, false)
}

func (t *tracker) pushLocked(ctx context.Context, now bool) {
	body := comments.RenderStatus(t.s)
	if body == t.last {
		return
	}
	if wait := statusInterval - time.Since(t.pushed); !now && !t.pushed.IsZero() && wait > 0 {
		if t.flush == nil {
			bg := context.WithoutCancel(ctx)
			t.flush = time.AfterFunc(wait, func() {
				t.mu.Lock()
				defer t.mu.Unlock()
				t.flush = nil
				t.pushLocked(bg, true)
			})
		}
		return
	}
	t.pushed = time.Now()
	if err := t.host.Status(ctx, t.s); err != nil {
		// Progress display is best effort; the outcome comment is what counts.
		t.log.Warn("status comment not updated", "err", err)
		return
	}
	t.last = body
}

// failedStage is the stage shown as failed or running, for fingerprints.
func (t *tracker) failedStage() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, st := range t.s.Stages {
		if st.State == "failed" || st.State == "running" {
			return st.Name
		}
	}
	return StagePlan
}
