package webhooks

import (
	"encoding/json"
	"testing"

	"github.com/google/go-github/v60/github"
)

// BenchmarkDecodeIssues: the fields intake reads from a real issues.labeled
// delivery, against go-github's full event type (what intake used to decode
// into, after checking the body with json.Valid) in the same run.
func BenchmarkDecodeIssues(b *testing.B) {
	body := labeled(b, "warden:maintenance", "Codertocat")
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			var ev github.IssuesEvent
			if !json.Valid(body) || json.Unmarshal(body, &ev) != nil {
				b.Fatal("decode")
			}
		}
	})
	b.Run("lean", func(b *testing.B) {
		for b.Loop() {
			var ev issuePayload
			if err := decodePayload(Delivery{Event: "issues", Payload: body}, &ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The lean decoding reads what the full one does, for every field intake uses.
func TestLeanDecodeMatchesGoGitHub(t *testing.T) {
	body := labeled(t, "warden:maintenance", "Codertocat")
	var full github.IssuesEvent
	var lean issuePayload
	if err := json.Unmarshal(body, &full); err != nil {
		t.Fatal(err)
	}
	if err := decodePayload(Delivery{Event: "issues", Payload: body}, &lean); err != nil {
		t.Fatal(err)
	}
	ic, ok := lean.context()
	if !ok || ic.inst != full.GetInstallation().GetID() || ic.owner != full.GetRepo().GetOwner().GetLogin() ||
		ic.name != full.GetRepo().GetName() || ic.sender != full.GetSender().GetLogin() ||
		lean.Action != full.GetAction() || lean.Label.Name != full.GetLabel().GetName() ||
		ic.issue.Number != full.GetIssue().GetNumber() || ic.issue.ID != full.GetIssue().GetID() ||
		ic.issue.Title != full.GetIssue().GetTitle() || ic.issue.Body != full.GetIssue().GetBody() ||
		ic.repo.CloneURL != full.GetRepo().GetCloneURL() || ic.repo.DefaultBranch != full.GetRepo().GetDefaultBranch() ||
		len(ic.issue.Labels) != len(full.GetIssue().Labels) || ic.issue.isPullRequest() != full.GetIssue().IsPullRequest() {
		t.Fatalf("lean %+v (ok=%v) differs from go-github's %+v", ic, ok, full)
	}
}
