package outcome

import (
	"context"
	"errors"
	"net"
	"regexp"
	"strings"
	"time"
)

// Verdict is how Classify read an error.
type Verdict struct {
	Class      Class
	Fallback   bool // no rule matched: transient by default, and counted by the breaker
	RetryAfter time.Duration
	Reason     string
}

// hang is implemented by the supervisor's stall and heartbeat errors.
type hang interface{ Hang() bool }

// httpStatus is implemented by typed API errors that know their status.
type httpStatus interface{ HTTPStatus() int }

// panicked is implemented by recovered panics.
type panicked interface{ Panic() any }

// Classify reads an error in order: the context's cause, typed errors, HTTP
// statuses, message patterns, and finally a transient fallback.
func Classify(err error) Verdict {
	if err == nil {
		return Verdict{Class: None}
	}
	var h hang
	if errors.As(err, &h) && h.Hang() {
		return Verdict{Class: Transient, Reason: "stalled"}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Verdict{Class: Transient, Reason: "deadline"}
	}
	var oe *Error
	if errors.As(err, &oe) && oe.Class != None {
		return Verdict{Class: oe.Class, RetryAfter: oe.RetryAfter, Reason: "typed"}
	}
	if errors.Is(err, context.Canceled) {
		return Verdict{Class: Canceled, Reason: "canceled"}
	}
	var p panicked
	if errors.As(err, &p) {
		return Verdict{Class: Deterministic, Reason: "panic"}
	}
	var hs httpStatus
	if errors.As(err, &hs) {
		if v, ok := byStatus(hs.HTTPStatus(), err.Error()); ok {
			return v
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Verdict{Class: Transient, Reason: "network timeout"}
	}
	return byMessage(err.Error())
}

func byStatus(code int, msg string) (Verdict, bool) {
	switch {
	case code == 429 || code == 529 || code >= 500:
		return Verdict{Class: Transient, Reason: "http status"}, true
	case code == 403 && rateLimitRE.MatchString(msg):
		return Verdict{Class: Transient, Reason: "rate limit"}, true
	case code == 400 && budgetRE.MatchString(msg):
		return Verdict{Class: BudgetExhausted, Reason: "context length"}, true
	case code >= 400 && code < 500:
		return Verdict{Class: Deterministic, Reason: "http status"}, true
	}
	return Verdict{}, false
}

var (
	rateLimitRE = regexp.MustCompile(`(?i)\b(secondary )?rate limit\b|\bAPI rate limit exceeded\b|\babuse detection\b`)
	budgetRE    = regexp.MustCompile(`(?i)\bcontext_length_exceeded\b|\bmaximum context length\b|\bprompt is too long\b|\btoo many tokens\b|\bbudget (exhausted|exceeded)\b`)
	patterns    = []struct {
		re    *regexp.Regexp
		class Class
	}{
		{budgetRE, BudgetExhausted},
		{rateLimitRE, Transient},
		{regexp.MustCompile(`(?i)\b(connection refused|connection reset( by peer)?|broken pipe|i/o timeout|TLS handshake timeout|no such host|EOF|unexpected EOF|temporary failure in name resolution|server misbehaving)\b`), Transient},
		{regexp.MustCompile(`(?i)\b(502 Bad Gateway|503 Service Unavailable|504 Gateway Time-?out|500 Internal Server Error|overloaded(_error)?|Service Unavailable|try again later|timed out|timeout exceeded)\b`), Transient},
		// A full disk is the host's state, not the task's: retried with
		// backoff it succeeds once an operator frees space, where an
		// escalation would end the task for good.
		{regexp.MustCompile(`(?i)\b(no space left on device|disk quota exceeded)\b`), Transient},
		{regexp.MustCompile(`(?m)^(--- FAIL|FAIL\b)|\bFAIL\s+\S+\s+[\d.]+s\b|\b\d+ (failed|failing)\b|\bAssertionError\b`), TestFailure},
		{regexp.MustCompile(`(?i)\b(Bad credentials|Not Found|Validation Failed|Resource not accessible by integration|Must have admin rights|invalid_api_key|Incorrect API key|authentication_error|permission_error|invalid_request_error)\b`), Deterministic},
		{regexp.MustCompile(`(?i)\b(not a git repository|bad object|unable to read tree|index file corrupt|CONFLICT \(content\)|merge conflict|does not match any|pathspec .* did not match|refusing to merge unrelated histories)\b`), Deterministic},
	}
)

func byMessage(msg string) Verdict {
	for _, p := range patterns {
		if p.re.MatchString(msg) {
			return Verdict{Class: p.class, Reason: "pattern"}
		}
	}
	return Verdict{Class: Transient, Fallback: true, Reason: "fallback"}
}

// Trim keeps a message to n bytes, dropping a rune cut in half.
func Trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
