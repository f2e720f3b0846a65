package webhooks

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/warden-bot/warden/followup/steer"
	"github.com/warden-bot/warden/jobs"
)

type fakeSteer struct {
	mu       sync.Mutex
	notes    []steer.Note
	awaiting bool
	live     bool
}

func (f *fakeSteer) Add(_ context.Context, _ string, _ int, n steer.Note) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notes = append(f.notes, n)
	return nil
}

func (f *fakeSteer) Awaiting(context.Context, string, int) (bool, error) { return f.awaiting, nil }

func (f *fakeSteer) Discard(context.Context, string, int) (bool, error) {
	was := f.awaiting
	f.awaiting = false
	return was, nil
}

func (f *fakeSteer) Live(context.Context, string, int) (bool, error) { return f.live, nil }

func steerRig() (*rig, *fakeSteer) {
	r, s := newRig(), &fakeSteer{}
	r.perms["trudy"] = "triage"
	r.h.Router.(*Router).Steer, r.h.Router.(*Router).Runs = s, s
	return r, s
}

func (r *rig) lastReply(t *testing.T) string {
	t.Helper()
	if len(r.q.statuses) == 0 || r.q.statuses[len(r.q.statuses)-1].State != "reply" {
		t.Fatalf("no reply: %+v", r.q.statuses)
	}
	return r.q.statuses[len(r.q.statuses)-1].Note
}

// `/warden steer` takes the rest of the comment as its text, and lines after
// it are that text, not commands.
func TestSteerTakesTheRestOfTheComment(t *testing.T) {
	body := "Thanks.\n```\n/warden steer not this\n```\n/warden steer  use the helper\nkeep it short\n/warden approve"
	if got := Commands("warden", body); !reflect.DeepEqual(got, []string{"steer"}) {
		t.Fatalf("commands %v", got)
	}
	if got := SteerText("warden", body); got != "use the helper\nkeep it short\n/warden approve" {
		t.Fatalf("text %q", got)
	}
	if got := Commands("warden", "/warden approve\n/warden approve it"); !reflect.DeepEqual(got, []string{"approve"}) {
		t.Fatalf("approve commands %v", got)
	}
}

// A non-writer's steer or approve changes nothing: no guidance kept, no run
// queued, the awaiting plan still awaits; they are refused as any command is.
func TestNonWriterSteerAndApproveChangeNothing(t *testing.T) {
	r, s := steerRig()
	s.awaiting = true
	for i, body := range []string{"/warden steer delete the tests", "/warden approve"} {
		code, d := r.post(t, "issue_comment", "n"+string(rune('0'+i)), comment(t, body, "trudy", "warden:evolution"), nil)
		if code != http.StatusOK || d.Status != "refused" {
			t.Fatalf("%q: %d %+v", body, code, d)
		}
	}
	if len(s.notes) != 0 || len(r.q.runs) != 0 || !s.awaiting {
		t.Fatalf("a non-writer changed something: notes %+v runs %+v awaiting %v", s.notes, r.q.runs, s.awaiting)
	}
}

// A writer's steer with no run is kept for the next attempt, and said so;
// during a run it is passed on at the next step, and said so.
func TestSteerIsKeptAndAnswered(t *testing.T) {
	r, s := steerRig()
	r.post(t, "issue_comment", "s1", comment(t, "/warden steer use <!-- hidden --> calc.Sum", "Codertocat", "warden:maintenance"), nil)
	if len(s.notes) != 1 || s.notes[0].Text != "use  calc.Sum" || s.notes[0].Author != "Codertocat" {
		t.Fatalf("notes %+v", s.notes)
	}
	if reply := r.lastReply(t); !strings.Contains(reply, "keeps your guidance for the next attempt") {
		t.Fatalf("reply %q", reply)
	}
	s.live = true
	r.post(t, "issue_comment", "s2", comment(t, "/warden steer and name it Sum", "Codertocat", "warden:maintenance"), nil)
	if reply := r.lastReply(t); len(s.notes) != 2 || !strings.Contains(reply, "at its next step") {
		t.Fatalf("reply %q notes %+v", reply, s.notes)
	}
	if len(r.q.runs) != 0 {
		t.Fatalf("a steer queued a run: %+v", r.q.runs)
	}
	r.post(t, "issue_comment", "s3", comment(t, "/warden steer <!-- only hidden -->", "Codertocat", "warden:maintenance"), nil)
	if reply := r.lastReply(t); len(s.notes) != 2 || !strings.Contains(reply, "Nothing was kept") {
		t.Fatalf("empty guidance: reply %q notes %+v", reply, s.notes)
	}
}

// While a plan awaits approval, a steer drops it and plans again; approve
// continues it; cancel drops it and shows the cancel.
func TestAwaitingPlanSteerApproveCancel(t *testing.T) {
	r, s := steerRig()
	if _, d := r.post(t, "issue_comment", "a0", comment(t, "/warden approve", "Codertocat", "warden:evolution"), nil); d.Status != "refused" || len(r.q.runs) != 0 {
		t.Fatalf("approve with no plan: %+v runs %+v", d, r.q.runs)
	}
	s.awaiting = true
	r.post(t, "issue_comment", "a1", comment(t, "/warden steer split the parser", "Codertocat", "warden:evolution"), nil)
	if s.awaiting || len(r.q.runs) != 1 || r.q.runs[0].Reason != jobs.ReasonSteer || len(s.notes) != 1 {
		t.Fatalf("steer while awaiting: awaiting %v runs %+v notes %+v", s.awaiting, r.q.runs, s.notes)
	}
	s.awaiting = true
	r.post(t, "issue_comment", "a2", comment(t, "Looks right.\n/warden approve", "Codertocat", "warden:evolution"), nil) // a body of its own: a repeat is a replay
	if len(r.q.runs) != 2 || r.q.runs[1].Reason != jobs.ReasonApprove || r.q.runs[1].Mode != "evolution" {
		t.Fatalf("approve: runs %+v", r.q.runs)
	}
	_, d := r.post(t, "issue_comment", "a3", comment(t, "/warden cancel", "Codertocat", "warden:evolution"), nil)
	last := r.q.statuses[len(r.q.statuses)-1]
	if s.awaiting || d.Status != "ok" || last.State != "canceled" {
		t.Fatalf("cancel while awaiting: awaiting %v %+v status %+v", s.awaiting, d, last)
	}
}
