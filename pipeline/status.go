package pipeline

import (
	"context"
	"log/slog"

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

// tracker owns the status checklist of one attempt and pushes it to the host
// only when it changed, so progress costs one comment edit per transition.
type tracker struct {
	host Host
	log  *slog.Logger
	s    comments.Status
	last string
}

func newTracker(host Host, log *slog.Logger, mode string, attempt int) *tracker {
	s := comments.Status{Mode: mode, Attempt: attempt, State: StateRunning}
	for _, name := range checklist {
		s.Stages = append(s.Stages, comments.StageLine{Name: name, State: "pending"})
	}
	return &tracker{host: host, log: log, s: s}
}

func (t *tracker) stage(ctx context.Context, name, state, note string) {
	for i := range t.s.Stages {
		if t.s.Stages[i].Name == name {
			t.s.Stages[i].State, t.s.Stages[i].Note = state, note
		}
	}
	t.push(ctx)
}

// finish marks the attempt's end state; stages still pending or running are
// shown as skipped, or canceled when the attempt was canceled.
func (t *tracker) finish(ctx context.Context, state, note string, pr int) {
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
	t.push(ctx)
}

func (t *tracker) push(ctx context.Context) {
	body := comments.RenderStatus(t.s)
	if body == t.last {
		return
	}
	if err := t.host.Status(ctx, t.s); err != nil {
		// Progress display is best effort; the outcome comment is what counts.
		t.log.Warn("status comment not updated", "err", err)
		return
	}
	t.last = body
}

// failedStage is the stage shown as failed or running, for fingerprints.
func (t *tracker) failedStage() string {
	for _, st := range t.s.Stages {
		if st.State == "failed" || st.State == "running" {
			return st.Name
		}
	}
	return StagePlan
}
