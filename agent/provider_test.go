package agent

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

func TestCostFromPriceTable(t *testing.T) {
	cases := []struct {
		cfg  Config
		want float64
	}{
		{Config{Model: "gpt-4o"}, 2.50 + 10},
		{Config{Model: "gpt-4o-mini"}, 0.15 + 0.60},
		{Config{Model: "claude-haiku-4-5"}, 1 + 5},
		// The operator's table wins over the defaults.
		{Config{Model: "gpt-4o", Prices: map[string]Price{"gpt-4o": {1, 1}}}, 2},
		// Dated and suffixed ids take their family's list price.
		{Config{Model: "gpt-4o-mini-2024-07-18"}, 0.15 + 0.60},
		{Config{Model: "claude-sonnet-4-5-20250929"}, 3 + 15},
		// An unknown model costs the fallback price, so a budget still binds.
		{Config{Model: "llama-3-70b-local"}, FallbackPrice.Input + FallbackPrice.Output},
	}
	for _, tc := range cases {
		// A million tokens each way costs the listed input plus output price.
		if got := tc.cfg.cost(1_000_000, 1_000_000); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: cost %v, want %v", tc.cfg.Model, got, tc.want)
		}
	}
	if got := (Config{Model: "gpt-4.1"}).cost(0, 0); got != 0 {
		t.Errorf("no tokens cost %v", got)
	}
	if (Usage{1, 2, 0.5}).Add(Usage{10, 20, 0.25}) != (Usage{11, 22, 0.75}) {
		t.Error("Usage.Add")
	}
}

func TestNewDefaults(t *testing.T) {
	if _, err := New(Config{API: "gemini"}); err == nil || !strings.Contains(err.Error(), "gemini") {
		t.Fatalf("unknown API: %v", err)
	}
	for api, model := range map[string]string{"": "gpt-4.1", "openai": "gpt-4.1", "anthropic": "claude-sonnet-4-5"} {
		p, err := New(Config{API: api, BaseURL: "http://127.0.0.1:1/" + t.Name() + api})
		if err != nil {
			t.Fatal(err)
		}
		var cfg Config
		switch inner := p.(*breakerProvider).p.(type) {
		case *openAI:
			cfg = inner.cfg
		case *anthropicProvider:
			cfg = inner.cfg
		}
		if cfg.Model != model || cfg.Timeout != 5*time.Minute {
			t.Errorf("API %q: model %q timeout %s, want %s and 5m", api, cfg.Model, cfg.Timeout, model)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	cases := []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "30"}, 30 * time.Second},
		{map[string]string{"Retry-After": "0"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"retry-after-ms": "250"}, 250 * time.Millisecond},
		{map[string]string{"retry-after-ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"retry-after-ms": "nope", "Retry-After": "9"}, 9 * time.Second},
		{map[string]string{"Retry-After": time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}, 0},
	}
	for _, tc := range cases {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := retryAfter(h); got != tc.want {
			t.Errorf("retryAfter(%v) = %s, want %s", tc.header, got, tc.want)
		}
	}
	// An HTTP date in the future: roughly the time until then.
	h := http.Header{"Retry-After": {time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}
	if got := retryAfter(h); got < 58*time.Minute || got > time.Hour {
		t.Errorf("retryAfter(date in an hour) = %s", got)
	}
	if retryAfter(nil) != 0 {
		t.Error("nil header")
	}
}

func TestAPIErrorClassesAndRedaction(t *testing.T) {
	cases := []struct {
		status int
		msg    string
		want   outcome.Class
	}{
		{429, "rate limited", outcome.Transient},
		{529, "Overloaded", outcome.Transient},
		{502, "bad gateway", outcome.Transient},
		{401, "invalid x-api-key", outcome.Deterministic},
		{403, "permission_error", outcome.Deterministic},
		{404, "model not found", outcome.Deterministic},
		{400, "context_length_exceeded", outcome.BudgetExhausted},
		{400, "Prompt is too long: 215000 tokens > 200000 maximum", outcome.BudgetExhausted},
		{400, "max_tokens: must be at most 8192", outcome.Deterministic},
	}
	for _, tc := range cases {
		err := apiError("Plan", tc.status, http.Header{"Retry-After": {"4"}}, tc.msg+" key="+testKey, testKey)
		v := outcome.Classify(err)
		if v.Class != tc.want {
			t.Errorf("%d %q: %s, want %s", tc.status, tc.msg, v.Class, tc.want)
		}
		if (tc.want == outcome.Transient) != (v.RetryAfter == 4*time.Second) {
			t.Errorf("%d: retry after %s", tc.status, v.RetryAfter)
		}
		if strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "[REDACTED]") {
			t.Errorf("%d: the key is not redacted: %v", tc.status, err)
		}
	}
	long := apiError("Plan", 500, nil, strings.Repeat("x", 5000), "")
	if len(long.Error()) > 600 {
		t.Errorf("a long body is quoted whole: %d bytes", len(long.Error()))
	}
}
