package webhooks

import (
	"net/http"
	"testing"
)

// checkRunOn is GitHub's check_run.completed for a Warden PR's head, run by
// the App named slug.
func checkRunOn(t *testing.T, slug string) []byte {
	return withInstallation(t, fixture(t, "check_run.completed.json"), func(m map[string]any) {
		run := m["check_run"].(map[string]any)
		run["pull_requests"].([]any)[0].(map[string]any)["head"].(map[string]any)["ref"] = "warden/7-add-returns-the-difference"
		run["app"].(map[string]any)["slug"] = slug
	})
}

// Warden's own `Warden` check run (its transcript) does not evaluate the PR
// again; another App's finished run does.
func TestOwnCheckRunIsNotCI(t *testing.T) {
	r := newRig()
	if code, d := r.post(t, "check_run", "own", checkRunOn(t, "warden-test"), nil); code != http.StatusOK && code != http.StatusAccepted || d.Status != "ignored" {
		t.Fatalf("Warden's own check run: %d %+v", code, d)
	}
	if len(r.q.prs) != 0 {
		t.Fatalf("Warden's own check run queued %d evaluations", len(r.q.prs))
	}
	if _, d := r.post(t, "check_run", "ci", checkRunOn(t, "github-actions"), nil); d.Status == "ignored" || len(r.q.prs) != 1 {
		t.Fatalf("another App's check run: %+v, %d evaluations", d, len(r.q.prs))
	}
}
