package e2e

import (
	"net/http"
	"strings"
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

// An issue's branch is named once: after its title is edited, `/warden
// retry` updates the same branch and PR (issue 17: the branch followed the
// title, so the retry opened a second PR and left the first one open).
func TestEditedTitleKeepsTheBranchAndPR(t *testing.T) {
	w := newWorld(t, calcRepo())
	w.Model.Script(happyScript)
	w.Label(81, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	first := w.OutcomeOf(81, 90*time.Second)
	if first.Outcome != outcome.Completed || first.PR == 0 {
		t.Fatalf("first record = %+v", first)
	}
	branch := w.Pull().Head
	w.GH.SetTitle(repo, 81, "calc: Add must add, not subtract")
	// The first task is done once a retry would queue again.
	w.Eventually(30*time.Second, func() bool { return w.Comment(81, "/warden retry", "alice") == http.StatusAccepted }, "the retry was never queued")
	w.Eventually(90*time.Second, func() bool { return len(w.Records(81)) >= 2 }, "the retry did not finish")
	prs := w.GH.Pulls(repo)
	if len(prs) != 1 || prs[0].Head != branch || prs[0].State != "open" {
		t.Fatalf("after the retry: PRs %+v, want only #%d on %s", prs, first.PR, branch)
	}
	if rs := w.Records(81); rs[len(rs)-1].PR != first.PR || rs[len(rs)-1].Branch != branch {
		t.Fatalf("retry record = %+v, want PR #%d on %s", rs[len(rs)-1], first.PR, branch)
	}
}

// No CI, no auto-merge: in a repository without CI, `/warden retry` pushes
// to the PR's branch (announced by synchronize) and the PR still waits,
// its issue's status comment saying why (issue 17: the push's synchronize
// merged it outright).
func TestRetryWithoutCIDoesNotMerge(t *testing.T) {
	w := withOpenPR(t, 82, "maintenance")
	w.Model.Script(retryScript) // the retry continues the PR's head (#27), where Add is already fixed
	first := w.Pull()
	w.Eventually(30*time.Second, func() bool { return w.Comment(82, "/warden retry", "alice") == http.StatusAccepted }, "the retry was never queued")
	w.Eventually(90*time.Second, func() bool { return len(w.Records(82)) >= 2 }, "the retry did not finish")
	// Release sets warden/mode on the new head; its synchronize and the
	// released-PR look (WARDEN_CI_GRACE=0s here) evaluate it. Their order
	// varies, so the test watches a window long enough for both rather
	// than counting them.
	w.Eventually(30*time.Second, func() bool {
		p := w.Pull()
		return p.Merged || p.HeadSHA != first.HeadSHA && w.evaluations(p.HeadSHA) >= 1
	}, "the retry's push was not released")
	for deadline := time.Now().Add(8 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if p := w.Pull(); p.Merged || p.State != "open" {
			t.Fatalf("merged without any CI: %+v", p)
		}
	}
	w.Eventually(30*time.Second, func() bool {
		return strings.Contains(w.CommentWith(82, "<!-- warden:status -->"), "no CI has reported on this head")
	}, "the status comment does not say why the PR waits")
}

// retryScript answers a run that continues a PR whose head already holds
// the fix, as a model shown that head would: with a change to the fixed
// code (followBlock), not the base's fix again.
func retryScript(req fakemodel.Request) fakemodel.Reply {
	if req.Stage == "implement" && strings.Contains(req.Prompt, "return a + b") {
		return text(followBlock)
	}
	return happyScript(req)
}
