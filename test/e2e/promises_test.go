package e2e

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
)

// A hollow review verdict ends the attempt: no second review, no PR, the
// issue escalated as hollow (issue 17: Review's retries let a later
// "achieved" release the change).
func TestHollowVerdictEndsTheAttemptWithoutAPR(t *testing.T) {
	w := newWorld(t, calcRepo())
	var reviews atomic.Int32
	w.Model.Script(func(r fakemodel.Request) fakemodel.Reply {
		if r.Stage == "review" && reviews.Add(1) == 1 {
			return text(`{"goal_status":"hollow","missing":"the change only silences the test"}`)
		}
		return happyScript(r)
	})
	w.Label(80, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(80, 90*time.Second)
	if rec.Outcome != outcome.Escalated || rec.FailureClass != outcome.Hollow {
		t.Fatalf("record = %+v, want escalated/hollow", rec)
	}
	if n := len(w.Model.RequestsFor("review")); n != 1 {
		t.Errorf("review calls = %d, want 1: a hollow verdict is final", n)
	}
	if n := len(w.GH.Pulls(repo)); n != 0 {
		t.Errorf("PRs = %d after a hollow verdict, want 0", n)
	}
}
