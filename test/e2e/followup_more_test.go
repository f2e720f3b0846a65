package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/gitfixture"
)

// A red GitHub Actions check hands the fix attempt what failed: the check
// run's output, its annotation (path, line, message) and the job log's
// tail, with secrets redacted; the attempt pushes to the same branch.
func TestRedCIGivesTheFixAttemptAnnotationsAndLogTail(t *testing.T) {
	w := withOpenPR(t, 82, "maintenance")
	w.Model.Script(followupScript)
	p := w.Pull()
	w.GH.SetCheckRun(repo, p.HeadSHA, "ci", "completed", "failure")
	log := strings.Repeat("setup step output\n", 2000) + "token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n--- FAIL: TestAddLarge (0.00s)\n    calc_test.go:9: Add(1<<62, 1<<62) overflowed\nFAIL\n"
	w.GH.SetCheckOutput(repo, p.HeadSHA, "ci", "github-actions", fakegithub.CheckOutput{Title: "1 test failed", Summary: "TestAddLarge failed"},
		[]fakegithub.Annotation{{Path: "calc/calc.go", Line: 5, Level: "failure", Message: "Add overflows for large inputs"}}, log)
	w.Deliver("check_run", "check_run.completed.json", func(m map[string]any) {
		cr := m["check_run"].(map[string]any)
		cr["head_sha"], cr["conclusion"], cr["name"] = p.HeadSHA, "failure", "ci"
		cr["pull_requests"] = []any{map[string]any{"number": p.Number, "head": map[string]any{"ref": p.Head, "sha": p.HeadSHA}, "base": map[string]any{"ref": "main"}}}
	})
	w.Eventually(90*time.Second, func() bool { return len(w.followups()) >= 1 }, "no fix attempt after the red check")
	prompt := w.followups()[0].Prompt
	for _, want := range []string{"1 test failed", "TestAddLarge failed", "calc/calc.go:5: failure: Add overflows for large inputs",
		"Add(1<<62, 1<<62) overflowed", "--- FAIL: TestAddLarge"} {
		if !strings.Contains(prompt, want) {
			t.Fatalf("fix prompt lacks %q:\n%s", want, tail(prompt, 3000))
		}
	}
	if strings.Contains(prompt, "ghp_abcdefghijklmnopqrstuvwxyz") || strings.Count(prompt, "setup step output") > 400 {
		t.Fatal("the job log reached the prompt unredacted or uncut")
	}
	w.Eventually(60*time.Second, func() bool { return len(w.outcomesOn(p)) == 1 }, "no outcome of the fix on the PR")
	if n := w.commitsSince(p.Head, p.HeadSHA); n != 1 || w.Pull().Head != p.Head {
		t.Fatalf("fix pushed %d commits (want 1 on %s)", n, p.Head)
	}
}

// After someone else pushes to Warden's branch, Warden says so once on the
// PR and stops changing the branch: no fix for a red check, no merge on a
// green one, no follow-up for a review, until a writer's `/warden retry`.
func TestHumanPushMakesWardenBackOff(t *testing.T) {
	w := withOpenPR(t, 83, "maintenance")
	w.Model.Script(followupScript)
	p := w.Pull()
	gitfixture.Commit(t, w.Bare, p.Head, map[string]string{"NOTES.md": "a maintainer's push\n"})
	p = w.Pull()
	for range 2 {
		w.Deliver("pull_request", "pull_request.synchronize.json", func(m map[string]any) {
			prPayload(m["pull_request"].(map[string]any), p)
			m["sender"].(map[string]any)["login"] = "alice"
		})
	}
	notice := func() int {
		return strings.Count(strings.Join(w.BotComments(p.Number), "\n"), "so Warden stops changing it")
	}
	w.Eventually(30*time.Second, func() bool { return notice() >= 1 }, "no notice of the hold on the PR")
	before := len(w.Model.Requests())
	w.CheckRun(p, "failure")
	w.reviewWith(p, "alice", "changes_requested", "Please also fix the README.")
	time.Sleep(3 * time.Second)
	w.CheckRun(p, "success")
	time.Sleep(3 * time.Second)
	if n := len(w.Model.Requests()); n != before {
		t.Fatalf("%d model calls on a held branch", n-before)
	}
	if got := w.Pull(); got.HeadSHA != p.HeadSHA || got.Merged {
		t.Fatalf("Warden changed a held branch: %+v", got)
	}
	if n := notice(); n != 1 {
		t.Fatalf("hold notice posted %d times", n)
	}
	w.prComment(p, "/warden retry", "alice")
	w.Eventually(90*time.Second, func() bool { return len(w.followups()) == 1 }, "the waiting review was not answered after /warden retry")
	if !strings.Contains(w.followups()[0].Prompt, "Please also fix the README.") {
		t.Fatal("the follow-up after retry lacks the review held back")
	}
}

// Comments that arrive while a follow-up runs are all answered by the
// next one: none is lost, none starts a third.
func TestCommentsDuringAFollowupAreBatchedIntoTheNext(t *testing.T) {
	w := withOpenPR(t, 84, "maintenance")
	p := w.Pull()
	calls := 0
	w.Model.Script(func(req fakemodel.Request) fakemodel.Reply {
		if !strings.Contains(req.Prompt, followupMarker) {
			return happyScript(req)
		}
		calls++
		if calls == 1 { // the first follow-up is slow: the comments land meanwhile
			return fakemodel.Reply{Hang: 4 * time.Second, Text: followBlock}
		}
		return text("calc/calc.go\n<<<<<<< SEARCH\n\treturn sum\n=======\n\treturn sum // a + b\n>>>>>>> REPLACE\n")
	})
	w.prComment(p, "/warden fix name the sum", "alice")
	w.Eventually(30*time.Second, func() bool { return len(w.Model.RequestsFor("implement")) > 1 }, "first follow-up did not start")
	w.prComment(p, "@warden-test also say what it returns", "alice")
	w.prComment(p, "/warden fix and keep it short", "alice")
	w.Eventually(120*time.Second, func() bool { return len(w.outcomesOn(p)) == 2 }, "second follow-up did not finish")
	time.Sleep(2 * time.Second)
	fu := w.followups()
	if len(fu) != 2 {
		t.Fatalf("%d follow-ups, want 2", len(fu))
	}
	for _, want := range []string{"also say what it returns", "and keep it short"} {
		if !strings.Contains(fu[1].Prompt, want) || strings.Contains(fu[0].Prompt, want) {
			t.Fatalf("comment %q not batched into the second follow-up", want)
		}
	}
	if n := w.commitsSince(p.Head, p.HeadSHA); n != 2 {
		t.Fatalf("%d commits, want 2", n)
	}
}

// Past followups.max a follow-up ends escalated, says why on the PR and
// pushes nothing.
func TestFollowupCapEscalates(t *testing.T) {
	w := newWorld(t, withConfig("test: go test ./...\nmax_fix_attempts: 2\nfollowups: {max: 1}\n"))
	w.Model.Script(followupScript)
	w.Label(85, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	w.OutcomeOf(85, 90*time.Second)
	p := w.Pull()
	w.prComment(p, "/warden fix name the sum", "alice")
	w.Eventually(90*time.Second, func() bool { return len(w.outcomesOn(p)) == 1 }, "first follow-up did not finish")
	head := w.Pull().HeadSHA
	w.prComment(p, "/warden fix one more thing", "alice")
	w.Eventually(90*time.Second, func() bool { return len(w.outcomesOn(p)) == 2 }, "second follow-up did not report")
	last := w.outcomesOn(p)[1]
	if !strings.Contains(last, "follow-up limit") || !strings.Contains(last, "\"outcome\":\"escalated\"") {
		t.Fatalf("cap outcome: %s", last)
	}
	w.Eventually(10*time.Second, func() bool { return w.HasLabel(85, "warden:escalated") }, "issue not escalated")
	if w.Pull().HeadSHA != head {
		t.Fatal("a follow-up past the cap pushed")
	}
}

// On an evolution PR a follow-up's push sets warden/mode back to pending:
// an approval of the old head no longer counts.
func TestEvolutionFollowupResetsApproval(t *testing.T) {
	w := withOpenPR(t, 88, "evolution")
	w.Model.Script(followupScript)
	p := w.Pull()
	w.Review(p, "alice", "APPROVED")
	w.Eventually(30*time.Second, func() bool { return w.modeStatus(p.HeadSHA) == "success" }, "approval not seen")
	w.prComment(p, "/warden fix name the sum", "alice")
	w.Eventually(90*time.Second, func() bool { return w.Pull().HeadSHA != p.HeadSHA }, "no follow-up push")
	head := w.Pull().HeadSHA // pushed first; its status follows the push
	w.Eventually(30*time.Second, func() bool { return w.modeStatus(head) != "" }, "no warden/mode on the follow-up's head")
	if st := w.modeStatus(head); st != "pending" {
		t.Fatalf("warden/mode on the follow-up's head = %q, want pending", st)
	}
	if w.Pull().Merged {
		t.Fatal("an evolution PR was merged")
	}
}
