package webhooks

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/warden-bot/warden/comments/dashboard"
	"github.com/warden-bot/warden/jobs"
)

type fakeDashboards struct {
	mu   sync.Mutex
	sent []jobs.DashboardPayload
}

func (f *fakeDashboards) EnqueueDashboard(_ context.Context, p jobs.DashboardPayload) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, p)
	return nil
}

// dashboardEdit is GitHub's issues.edited example turned into an edit of
// Warden's dashboard by sender: the body went from before to after.
func dashboardEdit(t *testing.T, author, sender, before, after string) []byte {
	return withInstallation(t, fixture(t, "issues.edited.json"), func(m map[string]any) {
		is := m["issue"].(map[string]any)
		is["title"], is["body"] = dashboard.Title, after
		is["user"].(map[string]any)["login"] = author
		m["sender"].(map[string]any)["login"] = sender
		m["changes"] = map[string]any{"body": map[string]any{"from": before}}
	})
}

const shown = dashboard.Marker + "\n### Escalated (2)\n\n- [ ] <!-- warden:retry:7 --> retry #7 — `test_failure`\n- [ ] <!-- warden:retry:8 --> retry #8 — `hollow`\n"

func ticked(n string) string {
	return dashboard.Marker + "\n### Escalated (2)\n\n- [" + n[:1] + "] <!-- warden:retry:7 --> retry #7 — `test_failure`\n- [" + n[1:] + "] <!-- warden:retry:8 --> retry #8 — `hollow`\n"
}

func TestDashboardTickByWriterRetries(t *testing.T) {
	r := newRig()
	dq := &fakeDashboards{}
	r.h.Router.(*Router).Dashboard = dq
	code, d := r.post(t, "issues", "e1", dashboardEdit(t, "warden-test[bot]", "Codertocat", shown, ticked(" x")), nil)
	if code != http.StatusAccepted || len(dq.sent) != 1 {
		t.Fatalf("got %d %+v, queued %+v", code, d, dq.sent)
	}
	p := dq.sent[0]
	if len(p.Retry) != 1 || p.Retry[0] != 8 || !p.Rewrite || p.Sender != "Codertocat" || p.Installation != 42 {
		t.Fatalf("payload = %+v, want a retry of #8 by Codertocat and a rewrite", p)
	}
}

// A non-writer's tick retries nothing; the dashboard is written over.
func TestDashboardTickByNonWriterIsUndone(t *testing.T) {
	r := newRig()
	r.perms["trudy"] = "triage"
	dq := &fakeDashboards{}
	r.h.Router.(*Router).Dashboard = dq
	code, d := r.post(t, "issues", "e2", dashboardEdit(t, "warden-test[bot]", "trudy", shown, ticked("x ")), nil)
	if code != http.StatusAccepted || len(dq.sent) != 1 {
		t.Fatalf("got %d %+v, queued %+v", code, d, dq.sent)
	}
	if p := dq.sent[0]; len(p.Retry) != 0 || !p.Rewrite {
		t.Fatalf("payload = %+v, want no retry and a rewrite", p)
	}
	if len(r.q.runs) != 0 || len(r.q.statuses) != 0 {
		t.Fatalf("a non-writer's tick queued runs %+v or replies %+v", r.q.runs, r.q.statuses)
	}
}

// A copy of the dashboard that Warden did not open is anyone's issue: its
// ticks are nobody's command.
func TestDashboardCopyIgnored(t *testing.T) {
	r := newRig()
	dq := &fakeDashboards{}
	r.h.Router.(*Router).Dashboard = dq
	code, d := r.post(t, "issues", "e3", dashboardEdit(t, "mallory", "Codertocat", shown, ticked("xx")), nil)
	if code != http.StatusOK || d.Status != "ignored" || len(dq.sent) != 0 {
		t.Fatalf("got %d %+v, queued %+v", code, d, dq.sent)
	}
}
