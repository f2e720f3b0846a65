package webhooks

import (
	"errors"
	"net/http"
	"testing"
)

// #27 item 5: a review stored by a delivery whose enqueue failed (503) is
// queued by the redelivery. Before the fix the redelivery saw "already
// pending", answered 200 and queued nothing: the feedback waited forever.
func TestRedeliveredReviewQueuesItsFollowup(t *testing.T) {
	r, fb := feedbackRig()
	body := ownPRPayload(t, "pull_request_review.submitted.json", "alice", func(m map[string]any) {
		m["review"].(map[string]any)["state"], m["review"].(map[string]any)["body"] = "changes_requested", "Rename it."
	})
	r.q.fail = errors.New("redis: connection refused")
	if code, _ := r.post(t, "pull_request_review", "r1", body, nil); code != http.StatusServiceUnavailable {
		t.Fatalf("first delivery answered %d, want 503", code)
	}
	if len(fb.items) != 1 {
		t.Fatalf("feedback not stored by the first delivery: %+v", fb.items)
	}
	r.q.fail = nil
	code, d := r.post(t, "pull_request_review", "r1-redelivery", body, nil)
	if len(r.q.runs) != 1 {
		t.Fatalf("redelivery answered %d %+v and queued no follow-up", code, d)
	}
}
