package pipeline

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/outcome"
)

func ghErr(status int, msg string) error {
	u, _ := url.Parse("https://api.github.com/repos/acme/calc/pulls")
	resp := &http.Response{StatusCode: status, Request: &http.Request{Method: http.MethodPost, URL: u}}
	return fmt.Errorf("create PR acme/calc warden/1-x: %w", &github.ErrorResponse{Response: resp, Message: msg})
}

// GitHub's answers are classified by their status: a 5xx is an expected
// transient failure (not a fallback the fingerprint breaker counts), a
// 4xx deterministic, a secondary rate limit transient; the message is kept.
func TestGitHubErrorsAreClassifiedByStatus(t *testing.T) {
	cases := []struct {
		err  error
		want outcome.Class
	}{
		{ghErr(502, "Server Error"), outcome.Transient},
		{ghErr(500, ""), outcome.Transient},
		{ghErr(409, "Git Repository is empty."), outcome.Deterministic},
		{ghErr(422, "Validation Failed"), outcome.Deterministic},
		{ghErr(403, "You have exceeded a secondary rate limit and have been temporarily blocked from content creation."), outcome.Transient},
		{ghErr(403, "Resource not accessible by integration"), outcome.Deterministic},
	}
	for _, tc := range cases {
		err := withHTTPStatus(tc.err)
		if v := outcome.Classify(err); v.Class != tc.want || v.Fallback {
			t.Errorf("%v: %s (fallback %v), want %s", tc.err, v.Class, v.Fallback, tc.want)
		}
		if err.Error() != tc.err.Error() || !errors.Is(err, errors.Unwrap(tc.err)) {
			t.Errorf("%v: the marked error changed to %v", tc.err, err)
		}
	}
	if plain := errors.New("push: exit status 1"); withHTTPStatus(plain) != plain || withHTTPStatus(nil) != nil {
		t.Error("an error without a GitHub answer must stay as it is")
	}
}
