package webhooks

import (
	"context"
	"encoding/json"
	"time"

	"github.com/warden-bot/warden/jobs"
)

// keys are what a delivery is deduplicated on: its id, and its body's
// signature. The id is not covered by the signature, so a captured signed
// body replayed under a new id is still the same delivery.
func (d Delivery) keys() []string {
	if d.Signature == "" {
		return []string{d.ID}
	}
	return []string{d.ID, "body:" + d.Signature}
}

// claimAll claims every key; the first that is not new decides, and the
// keys claimed before it are released.
func (h *Handler) claimAll(ctx context.Context, d Delivery) (jobs.DeliveryState, error) {
	keys := d.keys()
	for i, k := range keys {
		st, err := h.claim(ctx, k)
		if err != nil || st != jobs.DeliveryNew {
			for _, got := range keys[:i] {
				_ = h.Deliveries.Abort(context.WithoutCancel(ctx), got)
			}
			return st, err
		}
	}
	return jobs.DeliveryNew, nil
}

// stamp holds the timestamps GitHub puts on the objects of a payload.
type stamp struct {
	UpdatedAt   time.Time `json:"updated_at"`
	SubmittedAt time.Time `json:"submitted_at"`
	CompletedAt time.Time `json:"completed_at"`
}

// stale reports whether the payload's newest timestamp (of its issue,
// comment, pull request, review, check run or suite) is older than window:
// a replay from before the dedup window, whose keys have expired. A payload
// without any of them is not judged.
func stale(payload []byte, window time.Duration, now time.Time) bool {
	if window <= 0 {
		return false
	}
	var p struct {
		Issue       *stamp `json:"issue"`
		Comment     *stamp `json:"comment"`
		PullRequest *stamp `json:"pull_request"`
		Review      *stamp `json:"review"`
		CheckRun    *stamp `json:"check_run"`
		CheckSuite  *stamp `json:"check_suite"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return false
	}
	var newest time.Time
	for _, s := range []*stamp{p.Issue, p.Comment, p.PullRequest, p.Review, p.CheckRun, p.CheckSuite} {
		if s == nil {
			continue
		}
		for _, t := range []time.Time{s.UpdatedAt, s.SubmittedAt, s.CompletedAt} {
			if t.After(newest) {
				newest = t
			}
		}
	}
	return !newest.IsZero() && now.Sub(newest) > window
}
