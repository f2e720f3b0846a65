package webhooks

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/warden-bot/warden/followup"
)

type memFeedback struct {
	mu    sync.Mutex
	items []followup.Item
	holds map[int]string
	owed  map[int]bool // hand-backs released and not yet queued
}

func (m *memFeedback) Add(_ context.Context, _ string, _ int, it followup.Item) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, x := range m.items {
		if x.Key() == it.Key() {
			return false, nil
		}
	}
	m.items = append(m.items, it)
	return true, nil
}

func (m *memFeedback) HoldSince(_ context.Context, _ string, pr int, by string, _ time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.holds[pr] != "" {
		return false, nil
	}
	m.holds[pr] = by
	return true, nil
}

func (m *memFeedback) Held(_ context.Context, _ string, pr int) (string, error) {
	return m.holds[pr], nil
}
func (m *memFeedback) ReleaseIfBefore(_ context.Context, _ string, _ int64, pr int, _ time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.holds, pr)
	if m.owed == nil {
		m.owed = map[int]bool{}
	}
	m.owed[pr] = true
	return true, nil
}
func (m *memFeedback) HandBackOwed(_ context.Context, _ string, pr int) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.owed[pr], nil
}
func (m *memFeedback) HandedBack(_ context.Context, _ string, pr int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.owed, pr)
	return nil
}
func (m *memFeedback) Pending(context.Context, string, int) (int64, error) {
	return int64(len(m.items)), nil
}

const prBody = "Fixes #7\n\n<!-- warden:pr {\"issue\":7,\"mode\":\"maintenance\"} -->"

func feedbackRig() (*rig, *memFeedback) {
	r := newRig()
	fb := &memFeedback{holds: map[int]string{}}
	r.h.Router.(*Router).Followups = fb
	r.perms["alice"], r.perms["trudy"] = "write", "read"
	return r, fb
}

// ownPRPayload makes a fixture's pull_request Warden's own, sent by sender.
func ownPRPayload(t *testing.T, fixtureName, sender string, mutate func(m map[string]any)) []byte {
	return withInstallation(t, fixture(t, fixtureName), func(m map[string]any) {
		pr := m["pull_request"].(map[string]any)
		pr["body"], pr["number"] = prBody, 12
		pr["head"].(map[string]any)["ref"] = "warden/7-fix"
		pr["user"].(map[string]any)["login"] = "warden-test[bot]"
		m["sender"].(map[string]any)["login"] = sender
		if mutate != nil {
			mutate(m)
		}
	})
}

func TestWritersReviewQueuesAFollowupOnTheSameIssue(t *testing.T) {
	r, fb := feedbackRig()
	body := ownPRPayload(t, "pull_request_review.submitted.json", "alice", func(m map[string]any) {
		m["review"].(map[string]any)["state"], m["review"].(map[string]any)["body"] = "changes_requested", "Rename it."
	})
	code, d := r.post(t, "pull_request_review", "r1", body, nil)
	if code != http.StatusAccepted || len(r.q.runs) != 1 {
		t.Fatalf("got %d %+v, runs %+v", code, d, r.q.runs)
	}
	run := r.q.runs[0]
	if run.Reason != "followup" || run.PR != 12 || run.Issue != 7 || run.Mode != "maintenance" {
		t.Fatalf("run = %+v", run)
	}
	if len(fb.items) != 1 || fb.items[0].Kind != followup.KindReview || fb.items[0].Body != "Rename it." {
		t.Fatalf("items = %+v", fb.items)
	}
	inline := ownPRPayload(t, "pull_request_review_comment.created.json", "alice", nil)
	if code, _ := r.post(t, "pull_request_review_comment", "c1", inline, nil); code != http.StatusAccepted {
		t.Fatalf("inline comment answered %d", code)
	}
	it := fb.items[1]
	if it.Kind != followup.KindInline || it.Path != "README.md" || it.Line != 265 || it.DiffHunk == "" || it.ID != 284312630 {
		t.Fatalf("inline item = %+v", it)
	}
}

func TestFeedbackFromNonWritersAndOnOthersPRsIsIgnored(t *testing.T) {
	r, fb := feedbackRig()
	triage := ownPRPayload(t, "pull_request_review_comment.created.json", "trudy", nil)
	r.post(t, "pull_request_review_comment", "c1", triage, nil)
	notOurs := withInstallation(t, fixture(t, "pull_request_review_comment.created.json"), func(m map[string]any) {
		m["sender"].(map[string]any)["login"] = "alice"
		m["pull_request"].(map[string]any)["body"] = prBody // a pasted marker on someone else's PR
	})
	r.post(t, "pull_request_review_comment", "c2", notOurs, nil)
	if len(fb.items) != 0 || len(r.q.runs) != 0 {
		t.Fatalf("stored %+v, runs %+v", fb.items, r.q.runs)
	}
}

func TestPRCommentMentionAndFix(t *testing.T) {
	r, fb := feedbackRig()
	r.post(t, "issue_comment", "a", prComment(t, "nice work", "alice"), nil)
	r.post(t, "issue_comment", "b", prComment(t, "/warden fix add a test hint", "trudy"), nil)
	if len(fb.items) != 0 {
		t.Fatalf("stored %+v", fb.items)
	}
	code, _ := r.post(t, "issue_comment", "c", prComment(t, "/warden fix add a test hint", "alice"), nil)
	if code != http.StatusAccepted || len(fb.items) != 1 || fb.items[0].Body != "add a test hint" || fb.items[0].Kind != followup.KindComment {
		t.Fatalf("code %d items %+v", code, fb.items)
	}
}

func TestHumanPushHoldsTheBranchAndSaysSoOnce(t *testing.T) {
	r, fb := feedbackRig()
	push := func(id string) {
		body := ownPRPayload(t, "pull_request.synchronize.json", "alice", func(m map[string]any) { m["action"] = "synchronize" })
		r.post(t, "pull_request", id, body, nil)
	}
	push("p1")
	push("p2")
	notices := 0
	for _, s := range r.q.statuses {
		if s.State == "reply" && s.Issue == 12 {
			notices++
		}
	}
	if fb.holds[12] != "alice" || notices != 1 {
		t.Fatalf("holds %v, notices %d", fb.holds, notices)
	}
}
