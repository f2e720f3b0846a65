package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/outcome"
)

// React puts 👀 on the issue: the first sign, within a second of the label,
// that Warden saw it (GitHub answers 200 for a reaction already there).
func (h *GitHubHost) React(ctx context.Context) error {
	if _, _, err := h.Client.Reactions.CreateIssueReaction(ctx, h.Owner, h.Name, h.Number, "eyes"); err != nil {
		return fmt.Errorf("react to %s#%d: %w", h.repo(), h.Number, err)
	}
	return nil
}

// QueuedStatus writes the "queued" status comment in one call: an edit of
// the comment known, else a new comment; it never lists the issue's
// comments. It returns the comment's id, which the run then edits. known < 0
// means an earlier write failed and may have landed anyway (GitHub can store
// a comment and still answer 5xx): then it looks for it as the run would.
func (h *GitHubHost) QueuedStatus(ctx context.Context, s comments.Status, known int64) (int64, error) {
	if known < 0 {
		err := h.Status(ctx, s)
		return h.statusID, err
	}
	body := comments.RenderStatus(s)
	if known != 0 {
		err := h.Poster.EditComment(ctx, h.Owner, h.Name, h.Number, known, body)
		if err == nil || !isStatus(err, http.StatusNotFound) {
			return known, err
		}
	}
	return h.Poster.UpsertStatusNew(ctx, h.Owner, h.Name, h.Number, body)
}

// knownListing spares the run its listing of the issue's comments when the
// issue read just now shows that Warden's are known already: no comment at
// all, or one, the status comment the "queued" update wrote. Then there is no
// earlier outcome to read either. Called with the status lock held, so a
// "queued" update cannot land between the check and the run's first write.
func (h *GitHubHost) knownListing(ctx context.Context) ([]outcome.Record, bool) {
	if h.KnownStatus == nil || !h.counted {
		return nil, false
	}
	id := h.KnownStatus(ctx)
	if (h.comments == 0 && id == 0) || (h.comments == 1 && id > 0) {
		h.Poster.Seed(h.Number, id)
		h.statusID, h.ownOnly = id, true
		return nil, true
	}
	return nil, false
}

// swapFresh changes the state label in one call (replacing the issue's
// labels) when they were read a moment ago (the attempt's first state, just
// after it read the issue) and another state label must go: a "queued"
// label becomes "running" for one call instead of two, and a state already
// set costs none. Later swaps keep add-then-remove, which cannot drop a
// label someone added meanwhile.
func (h *GitHubHost) swapFresh(ctx context.Context, want string) (bool, error) {
	fresh := h.fresh
	h.fresh = false
	if !fresh {
		return false, nil
	}
	var next []string
	stale := false
	for _, l := range h.labels {
		if slices.ContainsFunc(States, func(s string) bool { return l == h.Prefix+":"+s }) && l != want {
			stale = true
			continue
		}
		next = append(next, l)
	}
	if !stale {
		// Already the state it should be (a settled issue looked at again):
		// no call at all.
		return slices.Contains(next, want), nil
	}
	if !slices.Contains(next, want) {
		next = append(next, want)
	}
	got, _, err := h.Client.Issues.ReplaceLabelsForIssue(ctx, h.Owner, h.Name, h.Number, next)
	if err != nil {
		return true, fmt.Errorf("label %s#%d %s: %w", h.repo(), h.Number, want, err)
	}
	h.labels = labelNames(got)
	return true, nil
}
