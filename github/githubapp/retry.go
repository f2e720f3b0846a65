package githubapp

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// RetryTransport retries GitHub REST calls that failed in a way GitHub says is
// temporary: 5xx, and 403/429 rate limits (honouring Retry-After and
// x-ratelimit-reset). Only requests that are safe to repeat are retried:
// GET/HEAD/PUT/DELETE/PATCH always; POST only on a 429/403 rate-limit answer,
// which GitHub sends before doing anything, or when the POST is idempotent by
// nature (see repeatable). Never another POST on a 5xx, after which the write
// may already have happened: those callers look before they write again.
type RetryTransport struct {
	Next     http.RoundTripper
	Attempts int
	MaxWait  time.Duration
}

// NewRetryTransport wraps next with Warden's defaults (4 attempts, waits ≤ 60 s).
func NewRetryTransport(next http.RoundTripper) *RetryTransport {
	return &RetryTransport{Next: next, Attempts: 4, MaxWait: 60 * time.Second}
}

// RoundTrip implements http.RoundTripper.
func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	for attempt := 1; ; attempt++ {
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		resp, err := t.Next.RoundTrip(req)
		wait, retry := t.shouldRetry(req, resp, err, attempt)
		if !retry {
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(wait):
		}
	}
}

func (t *RetryTransport) shouldRetry(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, bool) {
	if attempt >= t.Attempts || req.Context().Err() != nil {
		return 0, false
	}
	backoff := time.Duration(1<<(attempt-1)) * 500 * time.Millisecond
	if err != nil {
		return backoff, idempotent(req)
	}
	limited := resp.StatusCode == 429 || (resp.StatusCode == 403 && rateLimited(resp))
	switch {
	case limited:
		wait := retryAfter(resp, backoff)
		return wait, wait <= t.MaxWait
	case resp.StatusCode >= 500 && idempotent(req):
		return backoff, true
	}
	return 0, false
}

func idempotent(req *http.Request) bool {
	return req.Method != http.MethodPost || repeatable.MatchString(req.URL.Path)
}

// repeatable are the POSTs whose repetition changes nothing: adding labels
// an issue already has, setting a commit status to the state it already
// has (the latest per context wins), minting another installation token.
// Without this, a 5xx on the label that ends a task would leave the issue
// showing the wrong state.
var repeatable = regexp.MustCompile(`/issues/\d+/labels$|/statuses/[0-9a-fA-F]+$|/app/installations/\d+/access_tokens$`)

func rateLimited(resp *http.Response) bool {
	return resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-Ratelimit-Remaining") == "0" || limitBody(resp)
}

func retryAfter(resp *http.Response, fallback time.Duration) time.Duration {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return time.Duration(n) * time.Second
		}
	}
	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			if d := time.Until(time.Unix(n, 0)); d > 0 {
				return d + time.Second
			}
		}
	}
	// Secondary limits without headers: GitHub asks for at least a minute.
	if resp.StatusCode == 403 {
		return time.Minute
	}
	return fallback
}
