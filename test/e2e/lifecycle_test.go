package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/gitfixture"
)

// modeStatus is the last warden/mode status on sha.
func (w *world) modeStatus(sha string) string {
	st := ""
	for _, s := range w.GH.Statuses(repo, sha) {
		if s.Context == "warden/mode" {
			st = s.State
		}
	}
	return st
}

// withOpenPR is a world in which issue n, labelled for mode, went the
// happy path and has its PR open.
func withOpenPR(t *testing.T, n int, mode string) *world {
	t.Helper()
	w := newWorld(t, calcRepo())
	w.FollowPushes() // every push to the PR's branch is announced, as GitHub does
	w.Model.Script(happyScript)
	w.Label(n, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:"+mode, "alice")
	if rec := w.OutcomeOf(n, 90*time.Second); rec.Outcome != outcome.Completed {
		t.Fatalf("record = %+v", rec)
	}
	return w
}

// evaluations counts the warden/mode statuses Warden set on sha: each
// evaluation of an evolution PR sets one, so it shows the worker has looked.
func (w *world) evaluations(sha string) int {
	n := 0
	for _, s := range w.GH.Statuses(repo, sha) {
		if s.Context == "warden/mode" {
			n++
		}
	}
	return n
}

// A maintenance PR merges after green checks and not before: a red check
// is reported on the issue and queues a fix attempt on the same branch;
// the fix's push (announced by synchronize) does not merge the PR before
// any CI has reported on the new head; only a green check on the current
// head merges it.
func TestMaintenancePRMergesOnlyOnGreen(t *testing.T) {
	w := withOpenPR(t, 70, "maintenance")
	w.Model.Script(followupScript)
	first := w.Pull()
	w.Eventually(30*time.Second, func() bool {
		return strings.Contains(w.CommentWith(70, "<!-- warden:status -->"), "no CI has reported on this head")
	},
		"the status comment does not say why the PR waits without CI")
	w.CheckRun(first, "failure")
	w.Eventually(30*time.Second, func() bool { return strings.Contains(strings.Join(w.BotComments(70), "\n"), "CI failed on PR #") },
		"the red check was not reported on the issue")
	// The fix attempt is a follow-up on the same branch; its outcome is on the PR.
	w.Eventually(90*time.Second, func() bool { return len(w.outcomesOn(first)) >= 1 }, "no fix attempt after the red check")
	p := w.Pull()
	if p.HeadSHA == first.HeadSHA {
		t.Fatal("the fix attempt did not push a new head")
	}
	// Release sets warden/mode once; the synchronize evaluation sets it again.
	w.Eventually(30*time.Second, func() bool { return w.Pull().Merged || w.evaluations(p.HeadSHA) >= 2 }, "synchronize of the fix's push not evaluated")
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got := w.Pull(); got.Merged || got.State != "open" {
			t.Fatalf("merged before any CI reported on the new head: %+v", got)
		}
	}
	w.CheckRun(first, "success") // a late green for the old head says nothing about this one
	time.Sleep(time.Second)
	if w.Pull().Merged {
		t.Fatal("merged on a check of an old head")
	}
	w.CheckRun(p, "success")
	w.Eventually(30*time.Second, func() bool { return w.Pull().Merged }, "not merged after a green check")
	w.Eventually(10*time.Second, func() bool { return w.HasLabel(70, "warden:completed") }, "issue not marked completed")
}

// An evolution PR's warden/mode turns success only for a writer's approval
// of the current head, goes back to pending on a push, and is never merged.
func TestEvolutionPRNeedsAWritersApprovalOfTheHead(t *testing.T) {
	w := withOpenPR(t, 71, "evolution")
	p := w.Pull()
	if st := w.modeStatus(p.HeadSHA); st != "pending" {
		t.Fatalf("warden/mode after opening = %q, want pending", st)
	}
	before := w.evaluations(p.HeadSHA)
	w.Review(p, "trudy", "APPROVED") // triage: does not count
	w.Review(p, "warden-test[bot]", "APPROVED")
	w.Eventually(30*time.Second, func() bool { return w.evaluations(p.HeadSHA) >= before+2 }, "reviews not evaluated")
	if st := w.modeStatus(p.HeadSHA); st != "pending" {
		t.Fatalf("warden/mode after a triager's approval = %q", st)
	}
	w.Review(p, "alice", "APPROVED")
	w.Eventually(30*time.Second, func() bool { return w.modeStatus(p.HeadSHA) == "success" }, "a writer's approval did not turn warden/mode success")

	gitfixture.Commit(t, w.Bare, p.Head, map[string]string{"NOTES.md": "a maintainer's push\n"})
	p2 := w.Pull()
	if p2.HeadSHA == p.HeadSHA {
		t.Fatal("the push did not move the head")
	}
	w.Deliver("pull_request", "pull_request.synchronize.json", func(m map[string]any) {
		pr := m["pull_request"].(map[string]any)
		pr["number"], pr["state"] = p2.Number, "open"
		pr["head"].(map[string]any)["ref"], pr["head"].(map[string]any)["sha"] = p2.Head, p2.HeadSHA
		pr["user"].(map[string]any)["login"] = "warden-test[bot]"
	})
	w.Eventually(30*time.Second, func() bool { return w.modeStatus(p2.HeadSHA) == "pending" }, "warden/mode not pending after a push")
	before = w.evaluations(p2.HeadSHA)
	w.CheckRun(p2, "success")
	w.Eventually(30*time.Second, func() bool { return w.evaluations(p2.HeadSHA) > before }, "green check not evaluated")
	if w.Pull().Merged {
		t.Fatal("Warden merged an evolution PR")
	}
}

// A PR closed without merging hands the issue back to a human: escalated,
// with a note saying how to try again.
func TestPRClosedWithoutMergeEscalates(t *testing.T) {
	w := withOpenPR(t, 72, "maintenance")
	p := w.Pull()
	w.GH.ClosePull(repo, p.Number, false)
	w.Deliver("pull_request", "pull_request.closed.json", func(m map[string]any) {
		pr := m["pull_request"].(map[string]any)
		pr["number"], pr["state"], pr["merged"] = p.Number, "closed", false
		pr["head"].(map[string]any)["ref"], pr["head"].(map[string]any)["sha"] = p.Head, p.HeadSHA
		pr["user"].(map[string]any)["login"] = "warden-test[bot]"
	})
	w.Eventually(30*time.Second, func() bool { return w.HasLabel(72, "warden:escalated") }, "issue not escalated after its PR was closed")
	if !strings.Contains(strings.Join(w.BotComments(72), "\n"), "closed without being merged") {
		t.Fatal("no note on the issue")
	}
}
