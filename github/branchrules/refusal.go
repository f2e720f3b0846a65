package branchrules

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// Kind sorts GitHub's refusals of a merge by what Warden does next.
type Kind int

const (
	// Blocked: a requirement is unmet (review, check, signature …); the PR
	// waits for the event that changes it.
	Blocked Kind = iota
	// MethodRefused: the merge method is not allowed; another may be.
	MethodRefused
	// QueueRequired: changes must go through the merge queue.
	QueueRequired
	// Transient: it can pass by itself (the base moved, mergeability is
	// still being computed); re-evaluate after RetryAfter.
	Transient
	// HeadMoved: the head changed under the merge; the push's own event
	// re-evaluates the new head.
	HeadMoved
)

// Refusal is GitHub's answer to a merge call that did not merge.
type Refusal struct {
	Status int
	// Message is GitHub's own words, as the API sent them.
	Message string
	Kind    Kind
	// RetryAfter > 0: the refusal can pass by itself; evaluate again then.
	RetryAfter time.Duration
}

// retryBase is how long a refusal that passes by itself is given: GitHub
// recomputes mergeability within seconds of a base update.
const retryBase = 15 * time.Second

// ParseRefusal reads a merge call's error. ok is false when err is not a
// 405, 409 or 422 answer (a network error, a 5xx: a failure, not a refusal).
func ParseRefusal(err error) (Refusal, bool) {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return Refusal{}, false
	}
	code := er.Response.StatusCode
	if code != http.StatusMethodNotAllowed && code != http.StatusConflict && code != http.StatusUnprocessableEntity {
		return Refusal{}, false
	}
	msg := strings.TrimSpace(er.Message)
	for _, e := range er.Errors {
		if e.Message != "" && !strings.Contains(msg, e.Message) {
			msg += " " + e.Message
		}
	}
	r := Refusal{Status: code, Message: msg, Kind: Blocked}
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "merge queue"):
		r.Kind = QueueRequired
	case strings.Contains(low, "merges are not allowed") || strings.Contains(low, "merge commits are not allowed") ||
		strings.Contains(low, "merge method") && strings.Contains(low, "not allowed"):
		r.Kind = MethodRefused
	case strings.Contains(low, "head branch was modified"):
		r.Kind = HeadMoved
	case strings.Contains(low, "base branch was modified"), strings.Contains(low, "merge already in progress"),
		// Mergeability still being computed answers this too; a real
		// conflict is handled by the conflict update, so a few looks are cheap.
		strings.Contains(low, "pull request is not mergeable"):
		r.Kind, r.RetryAfter = Transient, retryBase
	}
	return r, true
}

// MethodOf names the method a "… are not allowed" message refuses, or "".
func MethodOf(msg string) string {
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "squash"):
		return Squash
	case strings.Contains(low, "rebase"):
		return Rebase
	case strings.Contains(low, "merge commits"):
		return Merge
	}
	return ""
}
