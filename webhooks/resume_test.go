package webhooks

import (
	"slices"
	"testing"
)

// `/warden resume` resumes the commenter's installation only: a writer of
// one tenant cannot restart another's paused queue (issue 17).
func TestResumeIsScopedToTheCommentersInstallation(t *testing.T) {
	r := newRig()
	body := withInstallation(t, comment(t, "/warden resume", "Codertocat", "warden:maintenance"), func(m map[string]any) {
		m["installation"] = map[string]any{"id": 77, "node_id": "MDIz"}
	})
	if _, d := r.post(t, "issue_comment", "resume-77", body, nil); d.Status != "ok" {
		t.Fatalf("resume: %+v", d)
	}
	if !slices.Equal(r.q.resumed, []int64{77}) {
		t.Fatalf("resumed installations = %v, want [77]", r.q.resumed)
	}
}
