package e2e

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// ownedRepo is the calc module with a CODEOWNERS on main: calc/ belongs to
// carol and the calc-team team, the rest to dave; mallory is named but is
// no collaborator, so GitHub refuses to ask her.
func ownedRepo() map[string]string {
	return withFiles(map[string]string{".github/CODEOWNERS": "* @dave\n/calc/ @carol @acme/calc-team @mallory\n"})
}

func (w *world) owners() {
	w.GH.SetPermission(repo, "carol", "write")
	w.GH.SetPermission(repo, "dave", "write")
	w.GH.AddTeam(repo, "calc-team")
}

// reviewAsked runs issue n in mode and returns the PR's requested
// reviewers and the status comment.
func (w *world) reviewAsked(t *testing.T, n int, mode string) (users, teams []string, status string) {
	t.Helper()
	w.Model.Script(happyScript)
	if code := w.Label(n, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:"+mode, "alice"); code != http.StatusAccepted {
		t.Fatalf("answered %d", code)
	}
	if rec := w.OutcomeOf(n, 90*time.Second); rec.Outcome != outcome.Completed || rec.PR == 0 {
		t.Fatalf("record = %+v\n%s", rec, w.Bot.Logs())
	}
	users, teams, calls := w.GH.ReviewRequests(repo, w.Pull().Number)
	t.Logf("review requests answered: %d", calls)
	return users, teams, w.CommentWith(n, "<!-- warden:status -->")
}

// Acceptance (issue 39): an evolution PR asks the code owners of its files
// (CODEOWNERS on the default branch: the change is in calc/, so carol and
// the team, not dave); the one GitHub refuses is left out and named; the
// status comment names who was asked.
func TestEvolutionPRAsksTheCodeOwners(t *testing.T) {
	w := newWorld(t, ownedRepo())
	w.owners()
	users, teams, status := w.reviewAsked(t, 95, "evolution")
	if !slices.Equal(users, []string{"carol"}) || !slices.Equal(teams, []string{"calc-team"}) {
		t.Fatalf("requested users %v teams %v, want carol and calc-team (the owners of calc/)", users, teams)
	}
	for _, want := range []string{"Review requested from @carol, @acme/calc-team (code owners of the changed files).", "GitHub refused to ask @mallory"} {
		if !strings.Contains(status, want) {
			t.Errorf("status comment lacks %q:\n%s", want, status)
		}
	}
}

// Acceptance (issue 39): a maintenance PR under a rule requiring an
// approving review asks the code owners too, once its checks pass and the
// review is what it waits for (the evaluation reads the rules for the
// merge); the status comment says what the rules want and who was asked.
func TestMaintenancePRUnderReviewRuleAsksTheCodeOwners(t *testing.T) {
	w := newWorld(t, ownedRepo())
	w.owners()
	w.GH.AddRule(repo, "pull_request", oneReview())
	w.reviewAsked(t, 96, "maintenance")
	p := w.Pull()
	w.CheckRun(p, "success")
	w.Eventually(30*time.Second, w.statusSays(96, "Review requested from @carol, @acme/calc-team (code owners of the changed files)."),
		"the status comment does not name who was asked")
	users, teams, calls := w.GH.ReviewRequests(repo, p.Number)
	if !slices.Equal(users, []string{"carol"}) || !slices.Equal(teams, []string{"calc-team"}) {
		t.Fatalf("requested users %v teams %v, want carol and calc-team", users, teams)
	}
	if !strings.Contains(w.CommentWith(96, "<!-- warden:status -->"), "At least 1 approving review is required") {
		t.Errorf("the status comment does not say the PR waits for a review")
	}
	// Another evaluation of the same head asks no one again.
	w.CheckRun(p, "success")
	w.holds(t, 2*time.Second)
	if _, _, again := w.GH.ReviewRequests(repo, p.Number); again != calls {
		t.Fatalf("%d review requests for one head, want %d", again, calls)
	}
}

// No rule asks for a review: a maintenance PR merges on green CI and asks no one.
func TestMaintenancePRWithoutReviewRuleAsksNoOne(t *testing.T) {
	w := newWorld(t, ownedRepo())
	w.owners()
	w.reviewAsked(t, 97, "maintenance")
	p := w.Pull()
	w.CheckRun(p, "success")
	w.Eventually(30*time.Second, func() bool { return w.Pull().Merged }, "not merged after a green check")
	if users, teams, calls := w.GH.ReviewRequests(repo, p.Number); calls > 0 {
		t.Fatalf("asked %v %v with no review rule", users, teams)
	}
}

// Without CODEOWNERS the writer who labelled the issue is asked, never
// Warden itself.
func TestEvolutionPRWithoutCodeOwnersAsksTheLabeller(t *testing.T) {
	w := newWorld(t, calcRepo())
	users, teams, status := w.reviewAsked(t, 98, "evolution")
	if !slices.Equal(users, []string{"alice"}) || len(teams) > 0 {
		t.Fatalf("requested users %v teams %v, want alice (who labelled the issue)", users, teams)
	}
	if !strings.Contains(status, "Review requested from @alice (who labelled the issue).") {
		t.Errorf("status comment:\n%s", status)
	}
}
