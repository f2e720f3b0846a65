package agent

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// Wire shapes of the OpenAI chat-completions API, as it answers them.
const (
	openAIReply = `{
  "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
  "object": "chat.completion",
  "created": 1741569952,
  "model": "gpt-4.1-2025-04-14",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "{\"decision\": \"implement\"}", "refusal": null, "annotations": []},
    "logprobs": null,
    "finish_reason": "stop"
  }],
  "usage": {
    "prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500,
    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
  },
  "service_tier": "default",
  "system_fingerprint": "fp_1234"
}`
	openAIEmpty = `{"id": "chatcmpl-x", "object": "chat.completion", "created": 1741569952, "model": "gpt-4.1",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": "", "refusal": null}, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 10, "completion_tokens": 0, "total_tokens": 10}}`
	openAINoChoices   = `{"id": "chatcmpl-x", "object": "chat.completion", "created": 1741569952, "model": "gpt-4.1", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 0, "total_tokens": 10}}`
	openAIRateLimited = `{"error": {"message": "Rate limit reached for gpt-4.1 in organization org-abc on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s.", "type": "tokens", "param": null, "code": "rate_limit_exceeded"}}`
	openAIServerError = `{"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error", "param": null, "code": null}}`
	openAIBadKey      = `{"error": {"message": "Incorrect API key provided: ` + testKey + `. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}`
	openAITooLong     = `{"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}`
	openAIBadRequest  = `{"error": {"message": "Invalid value for 'temperature': must be between 0 and 2.", "type": "invalid_request_error", "param": "temperature", "code": null}}`
)

func TestOpenAIChat(t *testing.T) {
	f := newFakeAPI(t, wireReply{status: 200, body: openAIReply})
	p := f.provider(t, "openai", "/v1")
	resp, err := p.Chat(context.Background(), ChatRequest{
		Stage:     "plan",
		MaxTokens: 1234,
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
	if resp.Text != `{"decision": "implement"}` {
		t.Errorf("text %q", resp.Text)
	}
	// gpt-4.1 lists at $2 in, $8 out per million tokens.
	if resp.Usage.InputTokens != 1000 || resp.Usage.OutputTokens != 500 || math.Abs(resp.Usage.CostUSD-0.006) > 1e-12 {
		t.Errorf("usage %+v, want 1000 in, 500 out, $0.006", resp.Usage)
	}

	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || !strings.HasSuffix(r.Path, "/v1/chat/completions") {
		t.Errorf("%s %s, want POST …/v1/chat/completions", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization %q", got)
	}
	if s, ok := r.Body["stream"]; ok && s != false {
		t.Errorf("stream = %v, want off", s)
	}
	if r.Body["model"] != "gpt-4.1" {
		t.Errorf("model %v", r.Body["model"])
	}
	if r.Body["max_tokens"] != float64(1234) {
		t.Errorf("max_tokens %v", r.Body["max_tokens"])
	}
	msgs, _ := r.Body["messages"].([]any)
	want := [][2]string{{"system", "you are careful"}, {"user", "plan issue 7"}, {"assistant", "not json"}, {"user", "reply with JSON"}}
	if len(msgs) != len(want) {
		t.Fatalf("messages %v", r.Body["messages"])
	}
	for i, m := range msgs {
		m, _ := m.(map[string]any)
		if m["role"] != want[i][0] || m["content"] != want[i][1] {
			t.Errorf("message %d = %v, want %v", i, m, want[i])
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	runErrorCases(t, "openai", "/v1", []providerCase{
		{name: "429 Retry-After", reply: wireReply{429, map[string]string{"Retry-After": "7", "x-ratelimit-reset-tokens": "2s"}, openAIRateLimited},
			class: outcome.Transient, retryAfter: 7 * time.Second, mention: "429"},
		{name: "429 retry-after-ms", reply: wireReply{429, map[string]string{"retry-after-ms": "1500", "Retry-After": "2"}, openAIRateLimited},
			class: outcome.Transient, retryAfter: 1500 * time.Millisecond},
		{name: "500", reply: wireReply{500, nil, openAIServerError}, class: outcome.Transient, mention: "500"},
		{name: "503 HTML from a proxy", reply: wireReply{503, map[string]string{"Content-Type": "text/html", "Retry-After": "3"}, "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>"},
			class: outcome.Transient, retryAfter: 3 * time.Second, mention: "503"},
		{name: "401", reply: wireReply{401, nil, openAIBadKey}, class: outcome.Deterministic, mention: "invalid_api_key"},
		{name: "401 plain text", reply: wireReply{401, map[string]string{"Content-Type": "text/plain"}, "Unauthorized: bad key " + testKey}, class: outcome.Deterministic, mention: "401"},
		{name: "400 context length", reply: wireReply{400, nil, openAITooLong}, class: outcome.BudgetExhausted, mention: "maximum context length"},
		{name: "400 other", reply: wireReply{400, nil, openAIBadRequest}, class: outcome.Deterministic, mention: "temperature"},
		{name: "200 malformed JSON", reply: wireReply{200, nil, `{"id": "chatcmpl-x", "choices": [`}, class: outcome.Transient, mention: "200"},
		{name: "200 not JSON", reply: wireReply{200, map[string]string{"Content-Type": "text/html"}, "<html>captive portal</html>"}, class: outcome.Transient, mention: "200"},
		{name: "empty content", reply: wireReply{200, nil, openAIEmpty}, class: outcome.ContractFailure, mention: "empty reply"},
		{name: "no choices", reply: wireReply{200, nil, openAINoChoices}, class: outcome.ContractFailure, mention: "empty reply"},
	})
}

func TestOpenAIUnreachable(t *testing.T) {
	f := newFakeAPI(t, wireReply{status: 200, body: openAIReply})
	p := f.provider(t, "openai", "/v1")
	f.Close()
	_, err := p.Chat(context.Background(), ChatRequest{Stage: "plan", Messages: []Message{{Role: "user", Content: "hi"}}})
	if outcome.ClassOf(err) != outcome.Transient || strings.Contains(err.Error(), testKey) {
		t.Fatalf("a closed server: %v, want transient without the key", err)
	}
}

func TestOpenAICanceled(t *testing.T) {
	f := newFakeAPI(t, wireReply{status: 200, body: openAIReply})
	p := f.provider(t, "openai", "/v1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Chat(ctx, ChatRequest{Stage: "plan", Messages: []Message{{Role: "user", Content: "hi"}}})
	if got := outcome.Classify(err).Class; got != outcome.Canceled {
		t.Fatalf("canceled call: %v classified %s, want canceled", err, got)
	}
}
