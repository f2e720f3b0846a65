package e2e

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/harness"
)

const fourFilePlan = `{"decision":"implement","summary":"s","approach":"a","files":["a.go","b.go","c.go","d.go"]}`

const decomposePlan = `{"decision":"decompose","summary":"Split in two.","approach":"one change per sub-issue",` +
	`"subtasks":[{"title":"Fix calc.Add","body":"Make Add add."},{"title":"Fix calc.Add again","body":"Make Add add, twice."}]}`

// splitting answers a parent's plans with four files and then a split;
// every sub-issue (its body carries the parent marker) gets the happy path.
func splitting(r fakemodel.Request) fakemodel.Reply {
	if r.Stage == "plan" && !strings.Contains(r.Prompt, "Part of #") {
		if strings.Contains(r.Prompt, "Split the work") {
			return text(decomposePlan)
		}
		return text(fourFilePlan)
	}
	return happyScript(r)
}

// closeIssue closes issue n as a maintainer would.
func (w *world) closeIssue(n int, label string) { w.closeIssueAs(n, label, "alice") }

// closeIssueAs closes issue n as sender: a PR Warden merged with "Fixes #n"
// closes the issue as Warden (sender warden-test[bot]).
func (w *world) closeIssueAs(n int, label, sender string) {
	w.GH.CloseIssue(repo, n)
	w.Deliver("issues", "issues.opened.json", func(m map[string]any) {
		m["action"] = "closed"
		is := m["issue"].(map[string]any)
		is["number"], is["state"], is["labels"] = n, "closed", []any{map[string]any{"name": label}}
		m["sender"].(map[string]any)["login"] = sender
	})
}

// A four-file maintenance plan fans out into sub-issues, each queued and
// worked on; closing them all completes and closes the parent, also when
// the last close is Warden's own (a merged "Fixes #n" PR).
func TestDecompositionCompletesTheParent(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(splitting)
	w.Label(80, "Rework calc", "Four files need changes.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(80, 90*time.Second)
	if rec.Outcome != outcome.Decomposed {
		t.Fatalf("record = %+v", rec)
	}
	var kids []int
	for _, title := range []string{"Fix calc.Add", "Fix calc.Add again"} {
		got := w.GH.IssuesTitled(repo, title)
		if len(got) != 1 || !strings.Contains(got[0].Body, `<!-- warden:parent {"issue":80,"depth":1} -->`) || len(got[0].Labels) == 0 {
			t.Fatalf("sub-issue %q = %+v", title, got)
		}
		kids = append(kids, got[0].Number)
	}
	for _, k := range kids {
		if r := w.OutcomeOf(k, 90*time.Second); r.Outcome != outcome.Completed {
			t.Fatalf("sub-issue #%d: %+v", k, r)
		}
	}
	w.closeIssue(kids[0], "warden:maintenance")
	time.Sleep(time.Second)
	if w.GH.Issue(repo, 80).State != "open" {
		t.Fatal("the parent closed while a sub-issue was open")
	}
	w.closeIssueAs(kids[1], "warden:maintenance", "warden-test[bot]") // its PR, merged by Warden, closed it
	w.Eventually(30*time.Second, func() bool { return w.GH.Issue(repo, 80).State == "closed" }, "parent not closed when every sub-issue was")
	if !strings.Contains(strings.Join(w.BotComments(80), "\n"), "Every sub-issue is closed") || !w.HasLabel(80, "warden:completed") {
		t.Fatalf("parent not completed: labels %v", w.GH.Labels(repo, 80))
	}
}

// A sub-issue three levels deep may not split again: depth 4 is refused,
// even when it was relabelled by hand (the marker keeps the depth).
func TestDecompositionDepthFourIsRefused(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(func(r fakemodel.Request) fakemodel.Reply {
		if r.Stage == "plan" && strings.Contains(r.Prompt, "Split the work") {
			return text(decomposePlan)
		}
		if r.Stage == "plan" {
			return text(fourFilePlan)
		}
		return happyScript(r)
	})
	body := "Deep work.\n\nPart of #3 (subtask 1 of 2).\n\n<!-- warden:parent {\"issue\":3,\"depth\":3} -->"
	w.Label(81, "Deep work", body, "warden:maintenance", "alice")
	rec := w.OutcomeOf(81, 90*time.Second)
	if rec.Outcome != outcome.Escalated || rec.FailureClass != outcome.GuardViolation || !strings.Contains(rec.Summary, "4 deep") {
		t.Fatalf("record = %+v", rec)
	}
	if len(w.GH.IssuesTitled(repo, "Fix calc.Add")) != 0 {
		t.Fatal("sub-issues were created past the depth limit")
	}
}

// A plan blocked on another issue waits; closing that issue (here by a PR
// Warden merged, so the close is Warden's own) queues the blocked one
// again, which remembers why it waited.
func TestBlockedIssueResumesWhenItsBlockerCloses(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.GH.AddIssue(repo, 75, "Upgrade the toolchain", "", "alice")
	var plans atomic.Int32
	w.Model.Script(func(r fakemodel.Request) fakemodel.Reply {
		if r.Stage == "plan" && plans.Add(1) == 1 {
			return text(`{"decision":"block","summary":"Needs the toolchain first.","obstacle":{"kind":"dependency","detail":"calc needs the new toolchain from #75","task":"#75"}}`)
		}
		return happyScript(r)
	})
	w.Label(74, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	if rec := w.OutcomeOf(74, 90*time.Second); rec.Outcome != outcome.Blocked || rec.Obstacle.Task != "#75" {
		t.Fatalf("record = %+v", rec)
	}
	// Exactly one state once the task has settled (CONTRACT §4): the outcome
	// comment goes out just before the state label swap.
	w.Eventually(10*time.Second, func() bool {
		got := w.stateLabels(74)
		return len(got) == 1 && got[0] == "warden:blocked"
	}, "state labels while blocked are not exactly warden:blocked")
	w.closeIssueAs(75, "bug", "warden-test[bot]") // a PR Warden merged closed it
	w.Eventually(90*time.Second, func() bool {
		rs := w.Records(74)
		return len(rs) > 0 && rs[len(rs)-1].Outcome == outcome.Completed
	}, "the blocked issue did not complete after its blocker closed")
	if second := w.planPrompt(2); !strings.Contains(second, "#75") {
		t.Fatalf("the resumed plan prompt does not say what it waited for:\n%s", second)
	}
}

// A deferred task comes back (here: its scheduled task is run now) with
// what the first attempt learned in its plan prompt.
func TestDeferredTaskReturnsWithItsContext(t *testing.T) {
	w := newWorld(t, calcRepo())
	var plans atomic.Int32
	w.Model.Script(func(r fakemodel.Request) fakemodel.Reply {
		if r.Stage == "plan" && plans.Add(1) == 1 {
			return text(`{"decision":"defer","summary":"The upstream fix is not released yet.","recommendation":"Retry once calc v2 is tagged upstream."}`)
		}
		return happyScript(r)
	})
	w.Label(76, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	if rec := w.OutcomeOf(76, 90*time.Second); rec.Outcome != outcome.Deferred {
		t.Fatalf("record = %+v", rec)
	}
	ins := asynq.NewInspector(asynq.RedisClientOpt{Addr: harness.RedisAddr(t), DB: w.DB})
	defer ins.Close()
	var id string
	w.Eventually(10*time.Second, func() bool {
		tasks, _ := ins.ListScheduledTasks("default")
		for _, ti := range tasks {
			if strings.Contains(string(ti.Payload), `"issue":76`) {
				id = ti.ID
			}
		}
		return id != ""
	}, "no scheduled follow-up for the deferred task")
	if err := ins.RunTask("default", id); err != nil {
		t.Fatal(err)
	}
	w.Eventually(90*time.Second, func() bool {
		rs := w.Records(76)
		return len(rs) > 0 && rs[len(rs)-1].Outcome == outcome.Completed
	}, "the deferred task did not complete when it came back")
	if second := w.planPrompt(2); !strings.Contains(second, "Retry once calc v2 is tagged upstream.") {
		t.Fatalf("the returning plan prompt lacks the first attempt's recommendation:\n%s", second)
	}
}

// planPrompt is the k-th plan request's prompt (1-based).
func (w *world) planPrompt(k int) string {
	if plans := w.Model.RequestsFor("plan"); len(plans) >= k {
		return plans[k-1].Prompt
	}
	w.T.Fatalf("fewer than %d plan requests", k)
	return fmt.Sprint()
}

// stateLabels are issue n's Warden state labels (not the trigger labels).
func (w *world) stateLabels(n int) []string {
	var out []string
	for _, l := range w.GH.Labels(repo, n) {
		if strings.HasPrefix(l, "warden:") && l != "warden:maintenance" && l != "warden:evolution" {
			out = append(out, l)
		}
	}
	return out
}
