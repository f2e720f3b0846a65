package githubapp

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// script answers requests with the given statuses in turn and records them.
type script struct {
	mu       sync.Mutex
	statuses []int
	header   http.Header
	seen     []time.Time
	bodies   []string
}

func (s *script) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := io.ReadAll(req.Body)
	s.bodies = append(s.bodies, string(b))
	s.seen = append(s.seen, time.Now())
	code := http.StatusOK
	if len(s.statuses) > 0 {
		code, s.statuses = s.statuses[0], s.statuses[1:]
	}
	h := http.Header{}
	if code != http.StatusOK {
		h = s.header.Clone()
	}
	return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader(`{"message":"Server Error"}`)), Request: req}, nil
}

func send(t *testing.T, rt http.RoundTripper, method, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, "http://github.test"+path, strings.NewReader(`{"labels":["warden:running"]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// A 5xx is retried for the POSTs that are idempotent by nature (labels,
// commit statuses, installation tokens) with the body sent again, and
// never for one that creates something (a comment, a PR).
func TestRetryServerErrorsOnlyWhereRepeatingIsHarmless(t *testing.T) {
	cases := []struct {
		method, path string
		calls        int
		status       int
	}{
		{http.MethodPost, "/repos/acme/calc/issues/7/labels", 3, 200},
		{http.MethodPost, "/repos/acme/calc/statuses/0a1b2c3d4e5f", 3, 200},
		{http.MethodPost, "/app/installations/42/access_tokens", 3, 200},
		{http.MethodPatch, "/repos/acme/calc/issues/comments/9", 3, 200},
		{http.MethodPost, "/repos/acme/calc/issues/7/comments", 1, 502},
		{http.MethodPost, "/repos/acme/calc/pulls", 1, 502},
		{http.MethodPost, "/repos/acme/calc/issues", 1, 502},
	}
	for _, tc := range cases {
		s := &script{statuses: []int{502, 500}}
		rt := &RetryTransport{Next: s, Attempts: 4, MaxWait: time.Minute}
		resp := send(t, rt, tc.method, tc.path)
		if len(s.seen) != tc.calls || resp.StatusCode != tc.status {
			t.Errorf("%s %s: %d calls ending %d, want %d ending %d", tc.method, tc.path, len(s.seen), resp.StatusCode, tc.calls, tc.status)
		}
		for i, b := range s.bodies {
			if b != s.bodies[0] {
				t.Errorf("%s %s: try %d sent %q, not the body", tc.method, tc.path, i+1, b)
			}
		}
	}
}

// A rate-limited POST is retried after the Retry-After wait: GitHub
// refuses it before doing anything.
func TestRetryRateLimitedPostAfterRetryAfter(t *testing.T) {
	s := &script{statuses: []int{403}, header: http.Header{"Retry-After": {"1"}}}
	rt := &RetryTransport{Next: s, Attempts: 4, MaxWait: time.Minute}
	if resp := send(t, rt, http.MethodPost, "/repos/acme/calc/issues/7/comments"); resp.StatusCode != 200 {
		t.Fatalf("answered %d", resp.StatusCode)
	}
	if len(s.seen) != 2 || s.seen[1].Sub(s.seen[0]) < time.Second {
		t.Fatalf("calls at %v, want two a second apart", s.seen)
	}
}
