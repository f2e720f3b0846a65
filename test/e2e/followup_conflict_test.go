package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/gitfixture"
)

// parents lists the parents of the branch's head commit.
func (w *world) parents(branch string) []string {
	w.T.Helper()
	out, err := exec.Command("git", "--git-dir="+w.Bare, "rev-list", "--parents", "-n", "1", branch).Output()
	if err != nil {
		w.T.Fatalf("rev-list: %v", err)
	}
	return strings.Fields(string(out))[1:]
}

// conflicted makes GitHub report the PR unmergeable and sends a check
// event, which re-evaluates it.
func (w *world) conflicted(p fakegithub.Pull) {
	w.T.Helper()
	f := false
	w.GH.SetMergeable(repo, p.Number, &f)
	// The released PR's look may be under way, with the PR read mergeable
	// already: the green check below would let it merge (a CI run under
	// load did). Evaluations of one PR run one at a time under its lease,
	// so once an evaluation that started after the change has read the PR,
	// none reads the old answer any more. A check event for a head the PR
	// never had starts one that reads the PR and merges nothing (stale).
	reads := w.prReads(p)
	other := p
	other.HeadSHA = strings.Repeat("0", 40)
	w.CheckRun(other, "success")
	w.Eventually(30*time.Second, func() bool { return w.prReads(p) > reads }, "no evaluation read the PR after the conflict")
	w.CheckRun(p, "success")
}

// prReads counts the GETs of the PR itself: each evaluation makes one,
// under the PR's lease, first (byStage's evaluations).
func (w *world) prReads(p fakegithub.Pull) int {
	return len(byStage(w.GH.Calls(), fmt.Sprintf("/repos/%s/pulls/%d", repo, p.Number))) - 1
}

// A PR behind a base that git merges alone is updated with a merge commit
// on the same branch, without a model edit, and is not merged meanwhile.
func TestConflictGitResolvesIsMergedIntoTheBranch(t *testing.T) {
	w := withOpenPR(t, 86, "maintenance")
	w.Model.Script(followupScript)
	p := w.Pull()
	gitfixture.Commit(t, w.Bare, "main", map[string]string{"README.md": "# calc\n\nAdds numbers.\n"})
	w.conflicted(p)
	w.Eventually(90*time.Second, func() bool { return w.Pull().HeadSHA != p.HeadSHA }, "branch not updated")
	got := w.Pull()
	if ps := w.parents(p.Head); len(ps) != 2 || ps[0] != p.HeadSHA || got.Head != p.Head || got.Merged {
		t.Fatalf("head parents %v (old head %s), PR %+v", ps, p.HeadSHA, got)
	}
	if !strings.Contains(gitfixture.ReadFile(t, w.Bare, p.Head, "README.md"), "Adds numbers.") {
		t.Fatal("the base's change is not on the branch")
	}
	if n := len(w.followups()); n != 0 {
		t.Fatalf("%d model edits for a conflict git resolved", n)
	}
	w.Eventually(30*time.Second, func() bool { return len(w.outcomesOn(p)) == 1 }, "no outcome on the PR")
}

// Hunks git cannot merge go to the model, which keeps both sides under the
// same guards and tests; the merge is pushed to the same branch.
func TestConflictTheModelResolves(t *testing.T) {
	w := withOpenPR(t, 87, "maintenance")
	w.Model.Script(func(req fakemodel.Request) fakemodel.Reply {
		if strings.Contains(req.Prompt, "git could not merge") {
			return text("calc/calc.go\n<<<<<<< SEARCH\n\treturn a + b\n=======\n\treturn a + b // overflow is the caller's\n>>>>>>> REPLACE\n")
		}
		return followupScript(req)
	})
	p := w.Pull()
	gitfixture.Commit(t, w.Bare, "main", map[string]string{"calc/calc.go": "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b // overflow is the caller's\n}\n"})
	w.conflicted(p)
	w.Eventually(90*time.Second, func() bool { return w.Pull().HeadSHA != p.HeadSHA }, "branch not updated")
	if ps := w.parents(p.Head); len(ps) != 2 || ps[0] != p.HeadSHA {
		t.Fatalf("head is not a merge of the old head and the base: %v", ps)
	}
	body := gitfixture.ReadFile(t, w.Bare, p.Head, "calc/calc.go")
	if !strings.Contains(body, "return a + b // overflow is the caller's") || strings.Contains(body, "<<<<<<<") {
		t.Fatalf("calc.go after the merge:\n%s", body)
	}
	fu := w.followups()
	if len(fu) != 1 || !strings.Contains(fu[0].Prompt, "<<<<<<< ") || !strings.Contains(fu[0].Prompt, "return a - b // overflow is the caller's") {
		t.Fatalf("conflict prompt(s): %d", len(fu))
	}
}

// GitHub reports a conflict, but the branch already holds the base's head
// (GitHub's answer was stale, or the base went back): the follow-up has
// nothing to merge. Before, its commit failed with git's "nothing to
// commit", taken for a transient error: three attempts, then "a temporary
// failure kept recurring" on the PR. Now one attempt ends with an outcome
// that says why, and the same head is not tried again.
func TestConflictWithNothingToMergeSaysSo(t *testing.T) {
	w := withOpenPR(t, 88, "maintenance")
	w.Model.Script(followupScript)
	p := w.Pull()
	w.conflicted(p)
	w.Eventually(90*time.Second, func() bool { return len(w.outcomesOn(p)) == 1 }, "no outcome on the PR")
	out := w.outcomesOn(p)[0]
	if !strings.Contains(out, "nothing to merge") || !strings.Contains(out, p.HeadSHA[:7]) {
		t.Fatalf("the outcome does not say the branch already holds the base:\n%s", out)
	}
	w.CheckRun(p, "success") // GitHub still says unmergeable: no second try on the same head
	time.Sleep(3 * time.Second)
	if got := w.Pull(); got.HeadSHA != p.HeadSHA || got.Merged || len(w.outcomesOn(p)) != 1 || len(w.followups()) != 0 {
		t.Fatalf("PR %+v after a second look; %d outcomes, %d model edits", got, len(w.outcomesOn(p)), len(w.followups()))
	}
}
