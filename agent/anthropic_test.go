package agent

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// Wire shapes of the Anthropic Messages API, as it answers them.
const (
	anthropicReply = `{
  "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [
    {"type": "text", "text": "Here is the plan.\n"},
    {"type": "text", "text": "{\"decision\": \"defer\"}"}
  ],
  "stop_reason": "end_turn",
  "stop_sequence": null,
  "usage": {"input_tokens": 2095, "output_tokens": 503, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "service_tier": "standard"}
}`
	anthropicEmpty = `{"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
  "content": [], "stop_reason": "end_turn", "stop_sequence": null, "usage": {"input_tokens": 12, "output_tokens": 0}}`
	anthropicRateLimited = `{"type": "error", "error": {"type": "rate_limit_error", "message": "This request would exceed the rate limit for your organization of 50,000 input tokens per minute."}, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}`
	anthropicServerError = `{"type": "error", "error": {"type": "api_error", "message": "Internal server error"}, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fz"}`
	anthropicOverloaded  = `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011CSHoEeqs5C35K2UUqR7G0"}`
	anthropicBadKey      = `{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key ` + testKey + `"}, "request_id": "req_011CSHoEeqs5C35K2UUqR7G1"}`
	anthropicTooLong     = `{"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 215000 tokens > 200000 maximum"}, "request_id": "req_011CSHoEeqs5C35K2UUqR7G2"}`
	anthropicBadRequest  = `{"type": "error", "error": {"type": "invalid_request_error", "message": "messages: roles must alternate between \"user\" and \"assistant\""}, "request_id": "req_011CSHoEeqs5C35K2UUqR7G3"}`
)

func TestAnthropicChat(t *testing.T) {
	f := newFakeAPI(t, wireReply{status: 200, body: anthropicReply})
	p := f.provider(t, "anthropic", "")
	resp, err := p.Chat(context.Background(), ChatRequest{
		Stage:     "plan",
		MaxTokens: 4321,
		Messages: []Message{
			{Role: "system", Content: "you are careful"},
			{Role: "user", Content: "plan issue 7"},
			{Role: "assistant", Content: "not json"},
			{Role: "user", Content: "reply with JSON"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Here is the plan.\n{\"decision\": \"defer\"}" {
		t.Errorf("text %q (the text blocks, joined)", resp.Text)
	}
	// claude-sonnet-4-5 lists at $3 in, $15 out per million tokens.
	if resp.Usage.InputTokens != 2095 || resp.Usage.OutputTokens != 503 || math.Abs(resp.Usage.CostUSD-0.01383) > 1e-12 {
		t.Errorf("usage %+v, want 2095 in, 503 out, $0.01383", resp.Usage)
	}

	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || !strings.HasSuffix(r.Path, "/v1/messages") {
		t.Errorf("%s %s, want POST …/v1/messages", r.Method, r.Path)
	}
	if got := r.Header.Get("X-Api-Key"); got != testKey {
		t.Errorf("x-api-key %q", got)
	}
	if r.Header.Get("Anthropic-Version") == "" {
		t.Error("no anthropic-version header")
	}
	if s, ok := r.Body["stream"]; ok && s != false {
		t.Errorf("stream = %v, want off", s)
	}
	if r.Body["model"] != "claude-sonnet-4-5" || r.Body["max_tokens"] != float64(4321) {
		t.Errorf("model %v, max_tokens %v", r.Body["model"], r.Body["max_tokens"])
	}
	sys, _ := r.Body["system"].([]any)
	if len(sys) != 1 || sys[0].(map[string]any)["text"] != "you are careful" {
		t.Errorf("system %v, want the system message as a text block", r.Body["system"])
	}
	msgs, _ := r.Body["messages"].([]any)
	want := [][2]string{{"user", "plan issue 7"}, {"assistant", "not json"}, {"user", "reply with JSON"}}
	if len(msgs) != len(want) {
		t.Fatalf("messages %v", r.Body["messages"])
	}
	for i, m := range msgs {
		m, _ := m.(map[string]any)
		blocks, _ := m["content"].([]any)
		if m["role"] != want[i][0] || len(blocks) != 1 || blocks[0].(map[string]any)["text"] != want[i][1] {
			t.Errorf("message %d = %v, want %v", i, m, want[i])
		}
	}
}

func TestAnthropicDefaultMaxTokens(t *testing.T) {
	f := newFakeAPI(t, wireReply{status: 200, body: anthropicReply})
	p := f.provider(t, "anthropic", "")
	if _, err := p.Chat(context.Background(), ChatRequest{Stage: "plan", Messages: []Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	// max_tokens is required by the Messages API; without a session limit the provider sends its own.
	if got := f.requests()[0].Body["max_tokens"]; got != float64(8192) {
		t.Fatalf("max_tokens %v, want 8192", got)
	}
}

func TestAnthropicErrors(t *testing.T) {
	runErrorCases(t, "anthropic", "", []providerCase{
		{name: "429 Retry-After", reply: wireReply{429, map[string]string{"Retry-After": "12", "anthropic-ratelimit-input-tokens-reset": "2026-01-01T00:00:12Z"}, anthropicRateLimited},
			class: outcome.Transient, retryAfter: 12 * time.Second, mention: "429"},
		{name: "500", reply: wireReply{500, nil, anthropicServerError}, class: outcome.Transient, mention: "500"},
		{name: "529 overloaded", reply: wireReply{529, nil, anthropicOverloaded}, class: outcome.Transient, mention: "529"},
		{name: "502 HTML from a proxy", reply: wireReply{502, map[string]string{"Content-Type": "text/html"}, "<html><body>502 Bad Gateway</body></html>"}, class: outcome.Transient, mention: "502"},
		{name: "401", reply: wireReply{401, nil, anthropicBadKey}, class: outcome.Deterministic, mention: "authentication_error"},
		{name: "400 prompt too long", reply: wireReply{400, nil, anthropicTooLong}, class: outcome.BudgetExhausted, mention: "prompt is too long"},
		{name: "400 other", reply: wireReply{400, nil, anthropicBadRequest}, class: outcome.Deterministic, mention: "alternate"},
		{name: "200 malformed JSON", reply: wireReply{200, nil, `{"id": "msg_01", "content": [{"type": "te`}, class: outcome.Transient, mention: "200"},
		{name: "200 not JSON", reply: wireReply{200, map[string]string{"Content-Type": "text/html"}, "<html>captive portal</html>"}, class: outcome.Transient, mention: "200"},
		{name: "empty content", reply: wireReply{200, nil, anthropicEmpty}, class: outcome.ContractFailure, mention: "empty reply"},
	})
}

func TestAnthropicUnreachable(t *testing.T) {
	f := newFakeAPI(t, wireReply{status: 200, body: anthropicReply})
	p := f.provider(t, "anthropic", "")
	f.Close()
	_, err := p.Chat(context.Background(), ChatRequest{Stage: "plan", Messages: []Message{{Role: "user", Content: "hi"}}})
	if outcome.ClassOf(err) != outcome.Transient || strings.Contains(err.Error(), testKey) {
		t.Fatalf("a closed server: %v, want transient without the key", err)
	}
}
