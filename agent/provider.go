// Package agent is the model side of Warden: providers (OpenAI-compatible,
// Anthropic, an external command), prompts, defensive parsing of replies,
// and token and cost accounting. Nothing a model says is trusted here: it is
// parsed, bounded and handed to deterministic code.
package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string // system, user, assistant
	Content string
}

// ChatRequest is one model call.
type ChatRequest struct {
	Messages  []Message
	MaxTokens int
	Stage     string
}

// Usage is what calls cost.
type Usage struct {
	InputTokens  int
	OutputTokens int
	CostUSD      float64
}

// Add sums usage.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.InputTokens + o.InputTokens, u.OutputTokens + o.OutputTokens, u.CostUSD + o.CostUSD}
}

// ChatResponse is a model's answer.
type ChatResponse struct {
	Text  string
	Usage Usage
}

// Provider is a chat model.
type Provider interface {
	Chat(ctx context.Context, req ChatRequest) (ChatResponse, error)
}

// Price is USD per million tokens.
type Price struct{ Input, Output float64 }

// DefaultPrices are list prices of common models; unknown models cost the
// fallback price so budgets still bind.
var DefaultPrices = map[string]Price{
	"gpt-4o":            {2.50, 10},
	"gpt-4o-mini":       {0.15, 0.60},
	"gpt-4.1":           {2, 8},
	"gpt-4.1-mini":      {0.40, 1.60},
	"claude-sonnet-4-5": {3, 15},
	"claude-haiku-4-5":  {1, 5},
	"claude-opus-4-1":   {15, 75},
}

// FallbackPrice applies to models missing from the table.
var FallbackPrice = Price{3, 15}

// Config selects and configures a provider.
type Config struct {
	API        string // openai or anthropic
	BaseURL    string
	APIKey     string
	Model      string
	Timeout    time.Duration
	Prices     map[string]Price
	HTTPClient *http.Client
}

func (c Config) cost(in, out int) float64 {
	p, ok := c.Prices[c.Model]
	if !ok {
		p = listPrice(c.Model)
	}
	return (float64(in)*p.Input + float64(out)*p.Output) / 1e6
}

// listPrice finds a model in DefaultPrices, also by its dated or suffixed
// id (gpt-4o-2024-08-06, claude-sonnet-4-5-20250929): the longest listed
// name the id starts with, followed by "-".
func listPrice(model string) Price {
	if p, ok := DefaultPrices[model]; ok {
		return p
	}
	best, p := "", FallbackPrice
	for name, price := range DefaultPrices {
		if strings.HasPrefix(model, name+"-") && len(name) > len(best) {
			best, p = name, price
		}
	}
	return p
}

// New builds the configured provider behind its endpoint's circuit breaker.
func New(cfg Config) (Provider, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	var p Provider
	switch cfg.API {
	case "openai", "":
		if cfg.Model == "" {
			cfg.Model = "gpt-4.1"
		}
		p = newOpenAI(cfg)
	case "anthropic":
		if cfg.Model == "" {
			cfg.Model = "claude-sonnet-4-5"
		}
		p = newAnthropic(cfg)
	default:
		return nil, fmt.Errorf("unknown model API %q (want openai or anthropic)", cfg.API)
	}
	return withBreaker(cfg.API+" "+cfg.BaseURL, p), nil
}

// apiError classifies a provider's HTTP error (CONTRACT §7): 429/529/5xx
// transient with the server's Retry-After, 401/403 deterministic, a context
// too long is the budget, other 4xx deterministic. The key never appears.
func apiError(stage string, status int, header http.Header, msg, key string) error {
	if key != "" {
		msg = strings.ReplaceAll(msg, key, "[REDACTED]")
	}
	e := &outcome.Error{Stage: stage, Msg: fmt.Sprintf("model API answered %d: %s", status, outcome.Trim(msg, 500))}
	lower := strings.ToLower(msg)
	switch {
	case status == 429 || status == 529 || status >= 500:
		e.Class, e.RetryAfter = outcome.Transient, retryAfter(header)
	case status == 400 && (strings.Contains(lower, "context_length") || strings.Contains(lower, "maximum context") || strings.Contains(lower, "prompt is too long") || strings.Contains(lower, "too many tokens")):
		e.Class = outcome.BudgetExhausted
	default:
		e.Class = outcome.Deterministic
	}
	return e
}

func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if ms, err := strconv.Atoi(h.Get("retry-after-ms")); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	v := h.Get("Retry-After")
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// transportError wraps a failure to reach the model at all.
func transportError(stage string, err error, key string) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	msg := err.Error()
	if key != "" {
		msg = strings.ReplaceAll(msg, key, "[REDACTED]")
	}
	return &outcome.Error{Class: outcome.Transient, Stage: stage, Msg: "model API unreachable: " + outcome.Trim(msg, 300)}
}

// httpTrace records the last HTTP response of one call, so that errors the
// SDKs do not type (a reply body that is not JSON, an error body without the
// API's envelope) keep their status and are not mistaken for an unreachable
// endpoint.
type httpTrace struct {
	status int
	header http.Header
	body   string // the start of an error response's body
}

// middleware has the shape of both SDKs' option.Middleware.
func (t *httpTrace) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	if err == nil && res != nil {
		t.status, t.header = res.StatusCode, res.Header
		if res.StatusCode >= 400 && res.Body != nil {
			b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
			_ = res.Body.Close()
			res.Body = io.NopCloser(bytes.NewReader(b))
			t.body = string(b)
		}
	}
	return res, err
}

// sdkError classifies an error the SDK returned untyped: an answered error
// status by that status, an answered reply it could not decode as a
// transient garbled reply (a proxy, a truncated body), anything else as a
// transport failure.
func (t *httpTrace) sdkError(stage string, err error, key string) error {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || t.status == 0:
		return transportError(stage, err, key)
	case t.status >= 400:
		return apiError(stage, t.status, t.header, t.body, key)
	}
	msg := fmt.Sprintf("model API answered %d with a reply that could not be read (%s): %s", t.status, t.header.Get("Content-Type"), err)
	if key != "" {
		msg = strings.ReplaceAll(msg, key, "[REDACTED]")
	}
	return &outcome.Error{Class: outcome.Transient, Stage: stage, Msg: outcome.Trim(msg, 500)}
}

func contractError(stage, msg string) error {
	return &outcome.Error{Class: outcome.ContractFailure, Stage: stage, Msg: msg}
}
