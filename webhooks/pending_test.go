package webhooks

import (
	"net/http"
	"testing"
	"time"
)

// A copy of a delivery whose first request has not answered is never
// acknowledged on that request's behalf: if the first one never answers
// (it died, or its Redis write to release the id failed), the copy gets 503
// and GitHub keeps the delivery; once the first answers, copies are 200.
func TestPendingDeliveryIsNotAcknowledged(t *testing.T) {
	r := newRig()
	r.h.PendingWait = 100 * time.Millisecond
	body := labeled(t, "warden:maintenance", "Codertocat")
	r.store.seen["held"] = "pending" // a request that died mid-way
	if code, d := r.post(t, "issues", "held", body, nil); code != http.StatusServiceUnavailable || len(r.q.runs) != 0 {
		t.Fatalf("copy of an unanswered delivery: %d %+v, runs %d", code, d, len(r.q.runs))
	}
	r.store.seen["held"] = "done"
	if code, d := r.post(t, "issues", "held", body, nil); code != http.StatusOK || d.Status != "duplicate" {
		t.Fatalf("copy of an answered delivery: %d %+v", code, d)
	}
}

// A copy that waits while the first request fails (and releases the id)
// does the work itself.
func TestPendingDeliveryReleasedIsProcessed(t *testing.T) {
	r := newRig()
	body := labeled(t, "warden:maintenance", "Codertocat")
	r.store.seen["retry"] = "pending"
	go func() {
		time.Sleep(100 * time.Millisecond)
		r.store.Abort(t.Context(), "retry") // the first request answered 503
	}()
	if code, d := r.post(t, "issues", "retry", body, nil); code != http.StatusAccepted || len(r.q.runs) != 1 {
		t.Fatalf("copy after the first failed: %d %+v, runs %d", code, d, len(r.q.runs))
	}
}
