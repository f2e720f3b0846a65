package pipeline

import (
	"errors"

	"github.com/google/go-github/v60/github"
)

// httpError carries the HTTP status of a GitHub API error to
// outcome.Classify, which reads statuses (5xx transient, 4xx
// deterministic) but must not know go-github. Without it a GitHub 502
// reads as an unknown failure, which the fingerprint breaker counts: three
// 502s in a row on PR creation ended a task that its retry policy would
// have carried through.
type httpError struct {
	error
	status int
}

func (e *httpError) HTTPStatus() int { return e.status }
func (e *httpError) Unwrap() error   { return e.error }

// withHTTPStatus marks err with the status of the GitHub answer inside it.
func withHTTPStatus(err error) error {
	if err == nil || errors.As(err, new(interface{ HTTPStatus() int })) {
		return err
	}
	var er *github.ErrorResponse
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	switch {
	case errors.As(err, &er) && er.Response != nil:
		return &httpError{err, er.Response.StatusCode}
	case errors.As(err, &rl) && rl.Response != nil:
		return &httpError{err, rl.Response.StatusCode}
	case errors.As(err, &ab) && ab.Response != nil:
		return &httpError{err, ab.Response.StatusCode}
	}
	return err
}
