package outcome

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

type statusErr struct {
	code int
	msg  string
}

func (e statusErr) Error() string   { return e.msg }
func (e statusErr) HTTPStatus() int { return e.code }

type hangErr struct{}

func (hangErr) Error() string { return "stage stalled: no progress for 2m0s" }
func (hangErr) Hang() bool    { return true }

type panicErr struct{}

func (panicErr) Error() string { return "panic: runtime error: index out of range [3] with length 3" }
func (panicErr) Panic() any    { return "index out of range" }

func fixture(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("..", "test", "fixtures", "github-api", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// At least 40 real error messages, classified.
func TestClassifyRealMessages(t *testing.T) {
	cases := []struct {
		err  error
		want Class
	}{
		// Context causes.
		{context.DeadlineExceeded, Transient},
		{fmt.Errorf("plan: %w", context.Canceled), Canceled},
		{fmt.Errorf("wrapped: %w", hangErr{}), Transient},
		{&Error{Class: GuardViolation, Msg: "protected path"}, GuardViolation},
		{panicErr{}, Deterministic},
		// GitHub API bodies from the fixtures, with their statuses.
		{statusErr{401, fixture(t, "bad-credentials.401.json")}, Deterministic},
		{statusErr{404, fixture(t, "not-found.404.json")}, Deterministic},
		{statusErr{404, fixture(t, "branch-not-protected.404.json")}, Deterministic},
		{statusErr{422, fixture(t, "validation-failed.422.json")}, Deterministic},
		{statusErr{422, fixture(t, "pulls-create-already-exists.422.json")}, Deterministic},
		{statusErr{422, fixture(t, "pulls-create-head-invalid.422.json")}, Deterministic},
		{statusErr{422, fixture(t, "labels-create-invalid-color.422.json")}, Deterministic},
		{statusErr{403, fixture(t, "rate-limit-primary.403.json")}, Transient},
		{statusErr{403, fixture(t, "rate-limit-secondary.403.json")}, Transient},
		{statusErr{403, fixture(t, "rate-limit-secondary.wait-a-few-minutes.403.json")}, Transient},
		{statusErr{502, "502 Bad Gateway"}, Transient},
		{statusErr{500, `{"message":"Server Error"}`}, Transient},
		// OpenAI and Anthropic API errors.
		{statusErr{429, `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`}, Transient},
		{statusErr{400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`}, BudgetExhausted},
		{statusErr{401, `{"error":{"message":"Incorrect API key provided: sk-abc***xyz.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}, Deterministic},
		{statusErr{500, `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error"}}`}, Transient},
		{statusErr{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, Transient},
		{statusErr{400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}}`}, BudgetExhausted},
		{statusErr{401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`}, Deterministic},
		{statusErr{403, `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}`}, Deterministic},
		// Messages without a status.
		{errors.New(`Post "https://api.openai.com/v1/chat/completions": dial tcp 104.18.6.192:443: connect: connection refused`), Transient},
		{errors.New(`read tcp 10.0.0.2:51234->140.82.112.6:443: read: connection reset by peer`), Transient},
		{errors.New(`Get "https://api.github.com/app": net/http: TLS handshake timeout`), Transient},
		{errors.New(`dial tcp: lookup api.github.com: no such host`), Transient},
		{errors.New(`unexpected EOF`), Transient},
		{errors.New("--- FAIL: TestAdd (0.00s)\n    calc_test.go:6: Add(2, 3) = -1, want 5\nFAIL\nFAIL\texample.com/calc/calc\t0.002s"), TestFailure},
		{errors.New("FAIL\texample.com/calc [build failed]"), TestFailure},
		{errors.New("3 failed, 12 passed in 0.42s"), TestFailure},
		{errors.New("fatal: not a git repository (or any of the parent directories): .git"), Deterministic},
		{errors.New("error: object file .git/objects/ab/cdef is empty\nfatal: bad object HEAD"), Deterministic},
		{errors.New("CONFLICT (content): Merge conflict in calc/calc.go"), Deterministic},
		{errors.New("error: pathspec 'nope' did not match any file(s) known to git"), Deterministic},
		{errors.New("fatal: refusing to merge unrelated histories"), Deterministic},
		{errors.New("write /var/lib/warden/data/mirrors/x: No space left on device"), Transient},
		{errors.New("prepare worktree: fetch acme/calc: git fetch --prune --quiet origin: exit status 128: fatal: unable to write loose object file: No space left on device\nfatal: unpack-objects failed"), Transient},
		{errors.New("open /data/worktrees/x/calc.go: disk quota exceeded"), Transient},
		{errors.New("Resource not accessible by integration"), Deterministic},
		{errors.New("You have exceeded a secondary rate limit. Please wait a few minutes before you try again."), Transient},
		{errors.New("budget exhausted: $1.02 of $1.00"), BudgetExhausted},
		{errors.New("something nobody anticipated happened"), Transient},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, tc := range cases {
		if got := Classify(tc.err); got.Class != tc.want {
			t.Errorf("Classify(%.80q) = %s (%s), want %s", tc.err.Error(), got.Class, got.Reason, tc.want)
		}
	}
	if v := Classify(errors.New("something nobody anticipated happened")); !v.Fallback {
		t.Error("an unmatched message must be marked as fallback")
	}
}

func TestFingerprintNormalizes(t *testing.T) {
	a := "2026-11-22T10:00:01Z worker 7f3a9c2e1b: dial 10.0.0.5:6379 after 1.5s in /tmp/warden-123/x (id 0xc000123456, 550e8400-e29b-41d4-a716-446655440000)"
	b := "2026-11-23T11:12:13Z worker 9b8c7d6e5f: dial 10.0.0.9:6379 after 250ms in /tmp/warden-999/y (id 0xc000999999, 123e4567-e89b-12d3-a456-426614174000)"
	if Fingerprint("Test", Transient, a) != Fingerprint("Test", Transient, b) {
		t.Fatalf("same failure, different fingerprints:\n%s\n%s", FingerprintKey("Test", Transient, a), FingerprintKey("Test", Transient, b))
	}
	if Fingerprint("Test", Transient, a) == Fingerprint("Plan", Transient, a) || Fingerprint("Test", Transient, "x") == Fingerprint("Test", Deterministic, "x") {
		t.Fatal("stage and class must be part of the fingerprint")
	}
	if len(FingerprintKey("s", Transient, string(make([]byte, 1000)))) > 300 {
		t.Fatal("normalized message not bounded")
	}
	if a, b := ContractFingerprint("Implement", "c"), ContractFingerprint("Implement", "c"); a != b || a == ContractFingerprint("Plan", "c") {
		t.Fatal("contract fingerprint must depend on stage and category only")
	}
}

func TestCountGoTests(t *testing.T) {
	if n := CountGoTests("=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\nPASS\nok  \tx\t0.01s\n"); n != 1 {
		t.Fatalf("verbose: %d", n)
	}
	if n := CountGoTests("ok  \texample.com/calc/calc\t0.002s\n"); n != 1 {
		t.Fatalf("quiet: %d", n)
	}
	if n := CountGoTests("?   \texample.com/calc\t[no test files]\n"); n != 0 {
		t.Fatalf("none: %d", n)
	}
	if n := CountGoTests("Ran 12 tests in 0.1s\nOK\n"); n != -1 {
		t.Fatalf("other runner: %d", n)
	}
}
