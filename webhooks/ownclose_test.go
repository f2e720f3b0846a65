package webhooks

import (
	"testing"
)

// issueEvent is the real issues.opened fixture turned into action by sender.
func issueEvent(t *testing.T, action, sender string) []byte {
	return withInstallation(t, fixture(t, "issues.opened.json"), func(m map[string]any) {
		m["action"] = action
		m["issue"].(map[string]any)["state"] = "closed"
		m["sender"].(map[string]any)["login"] = sender
	})
}

// Warden's own close (a merged "Fixes #n" PR) reaches the lifecycle;
// its other own events stay ignored (issue 17: every own event was dropped,
// so parents never completed and blocked issues never resumed).
func TestOwnCloseIsRoutedOtherOwnEventsIgnored(t *testing.T) {
	r := newRig()
	code, d := r.post(t, "issues", "own-close", issueEvent(t, "closed", "warden-test[bot]"), nil)
	if d.Status != "queued" || len(r.q.closed) != 1 || r.q.closed[0].Installation != 42 {
		t.Fatalf("own close: %d %+v closed=%+v", code, d, r.q.closed)
	}
	for _, action := range []string{"reopened", "edited"} {
		if _, d := r.post(t, "issues", "own-"+action, issueEvent(t, action, "warden-test[bot]"), nil); d.Status != "ignored" {
			t.Errorf("own %s: %+v", action, d)
		}
	}
	if _, d := r.post(t, "issues", "own-label", labeled(t, "warden:maintenance", "warden-test[bot]"), nil); d.Status != "ignored" || len(r.q.runs) != 0 {
		t.Errorf("own label: %+v runs=%d", d, len(r.q.runs))
	}
}
