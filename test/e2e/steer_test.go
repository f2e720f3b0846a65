package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/harness"
)

const guidanceTag = `<guidance author="alice">`

// A writer's steer sent while Implement works reaches the run's next model
// request (Review's), is answered, and is in the outcome record.
func TestSteerDuringImplementReachesTheNextRequest(t *testing.T) {
	w := newWorld(t, calcRepo())
	implementing, steered := make(chan struct{}, 1), make(chan struct{})
	w.Model.Script(func(req fakemodel.Request) fakemodel.Reply {
		if req.Stage == "implement" {
			select {
			case implementing <- struct{}{}:
			default:
			}
			select { // hold Implement until the steer is kept
			case <-steered:
			case <-time.After(60 * time.Second):
			}
		}
		return happyScript(req)
	})
	w.Label(31, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
	select {
	case <-implementing:
	case <-time.After(90 * time.Second):
		t.Fatalf("Implement never asked the model\n%s", tail(w.Bot.Logs(), 3000))
	}
	w.Comment(31, "/warden steer keep calc.Add a one-liner", "alice")
	w.Eventually(30*time.Second, func() bool { return w.CommentWith(31, "at its next step") != "" }, "steer not answered")
	close(steered)
	rec := w.OutcomeOf(31, 90*time.Second)
	if rec.Outcome != "completed" || len(rec.Guidance) != 1 || rec.Guidance[0].Author != "alice" || rec.Guidance[0].Text != "keep calc.Add a one-liner" {
		t.Fatalf("outcome %+v", rec)
	}
	reviews := w.Model.RequestsFor("review")
	if len(reviews) == 0 || !strings.Contains(reviews[0].Prompt, guidanceTag+"\nkeep calc.Add a one-liner") {
		t.Fatalf("the review request lacks the guidance:\n%v", reviews)
	}
	if impl := w.Model.RequestsFor("implement"); strings.Contains(impl[0].Prompt, "one-liner") {
		t.Fatal("the guidance was in a request sent before it")
	}
}

// With no run, a steer is kept (and Warden says so) and the next attempt's
// plan request carries it; a non-writer's steer changes nothing.
func TestSteerWithoutRunIsKeptForTheNextAttempt(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(happyScript)
	w.GH.AddIssue(repo, 32, "Add returns the difference", "fix Add", "alice")
	w.Comment(32, "/warden steer check calc_test.go first", "alice")
	w.Comment(32, "/warden steer delete every test", "trudy")
	w.Eventually(30*time.Second, func() bool { return w.CommentWith(32, "keeps your guidance for the next attempt") != "" }, "steer not answered")
	if code := w.Label(32, "Add returns the difference", "fix Add", "warden:maintenance", "alice"); code != http.StatusAccepted {
		t.Fatalf("label answered %d", code)
	}
	rec := w.OutcomeOf(32, 90*time.Second)
	plans := w.Model.RequestsFor("plan")
	if len(plans) == 0 || !strings.Contains(plans[0].Prompt, guidanceTag+"\ncheck calc_test.go first") {
		t.Fatalf("the plan request lacks the kept guidance:\n%v", plans)
	}
	for _, r := range w.Model.Requests() {
		if strings.Contains(r.Prompt, "<guidance author=\"trudy\"") {
			t.Fatalf("a non-writer's steer reached the model:\n%s", r.Prompt)
		}
	}
	if len(rec.Guidance) != 1 || rec.Guidance[0].Author != "alice" {
		t.Fatalf("record guidance %+v", rec.Guidance)
	}
}

const approvalConfig = "test: go test ./...\nmax_fix_attempts: 2\nmaintenance: {max_files: 2, max_lines: 150, auto_merge: true, plan_approval: true}\n"

// plan_approval: the plan is posted and the issue labelled, no worker held;
// a non-writer's approve changes nothing; a steer plans again with its
// text; an approve after a restart continues without a plan request.
func TestPlanApprovalSurvivesRestart(t *testing.T) {
	w := newWorld(t, withConfig(approvalConfig))
	w.Model.Script(happyScript)
	w.Label(33, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
	w.Eventually(90*time.Second, func() bool { return w.HasLabel(33, "warden:awaiting-approval") }, "never awaited approval")
	if plan := w.CommentWith(33, "<!-- warden:plan -->"); !strings.Contains(plan, "calc/calc.go") || !strings.Contains(plan, "/warden approve") {
		t.Fatalf("plan comment:\n%s", plan)
	}
	if n := len(w.Model.RequestsFor("implement")); n != 0 || w.CommentWith(33, "<!-- warden:outcome") != "" {
		t.Fatalf("the run went on without approval: %d implement requests", n)
	}
	w.Bot.Stop()
	w.Bot = harness.StartBinary(t, w.Bin, w.Env)

	w.Comment(33, "/warden approve", "trudy")
	w.Eventually(30*time.Second, func() bool { return w.CommentWith(33, "only users with write") != "" }, "non-writer not refused")
	time.Sleep(3 * time.Second)
	if n := len(w.Model.Requests()); n != 1 || !w.HasLabel(33, "warden:awaiting-approval") {
		t.Fatalf("a non-writer's approve changed something: %d model requests", n)
	}

	w.Comment(33, "/warden steer mention the overflow", "alice")
	w.Eventually(90*time.Second, func() bool {
		return len(w.Model.RequestsFor("plan")) == 2 && w.HasLabel(33, "warden:awaiting-approval") && len(w.BotCommentsWith(33, "<!-- warden:plan -->")) == 2
	}, "steer did not plan again")
	if p := w.Model.RequestsFor("plan")[1].Prompt; !strings.Contains(p, guidanceTag+"\nmention the overflow") {
		t.Fatalf("the new plan request lacks the steer:\n%s", p)
	}

	w.Bot.Stop()
	w.Bot = harness.StartBinary(t, w.Bin, w.Env)
	w.Comment(33, "/warden approve", "alice")
	rec := w.OutcomeOf(33, 90*time.Second)
	if rec.Outcome != "completed" || rec.PR == 0 {
		t.Fatalf("approved run: %+v\n%s", rec, tail(w.Bot.Logs(), 3000))
	}
	if n := len(w.Model.RequestsFor("plan")); n != 2 {
		t.Fatalf("approve asked for a new plan: %d plan requests", n)
	}
	w.Eventually(30*time.Second, func() bool { return !w.HasLabel(33, "warden:awaiting-approval") }, "awaiting label kept")
}

// BotCommentsWith are Warden's comments on issue n holding marker.
func (w *world) BotCommentsWith(n int, marker string) []string {
	var out []string
	for _, b := range w.BotComments(n) {
		if strings.Contains(b, marker) {
			out = append(out, b)
		}
	}
	return out
}
