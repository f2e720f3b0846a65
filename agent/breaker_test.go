package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

func chatOnce(p Provider) error {
	_, err := p.Chat(context.Background(), ChatRequest{Stage: "Implement", Messages: []Message{{Role: "user", Content: "hi"}}})
	return err
}

// Five transient failures in a row open the endpoint's breaker: the sixth
// call fails fast, transient with a Retry-After, without reaching the server.
func TestBreakerOpensAfterFiveTransientFailures(t *testing.T) {
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			f := newFakeAPI(t, wireReply{500, nil, openAIServerError})
			p := f.provider(t, api, "")
			for i := range 5 {
				if err := chatOnce(p); outcome.ClassOf(err) != outcome.Transient || strings.Contains(err.Error(), "circuit breaker") {
					t.Fatalf("call %d: %v, want the server's transient 500", i+1, err)
				}
			}
			err := chatOnce(p)
			v := outcome.Classify(err)
			if v.Class != outcome.Transient || v.RetryAfter <= 0 || !strings.Contains(err.Error(), "circuit breaker") {
				t.Fatalf("sixth call: %v classified %s retry after %s, want a transient breaker error with a Retry-After", err, v.Class, v.RetryAfter)
			}
			if n := len(f.requests()); n != 5 {
				t.Fatalf("the server saw %d requests, want 5 (the open breaker must not call it)", n)
			}
			// The breaker is the endpoint's, not the provider value's: a new provider
			// for the same endpoint (another task) fails fast too, even once the
			// server has recovered.
			f.answer(wireReply{200, nil, openAIReply})
			if err := chatOnce(f.provider(t, api, "")); !strings.Contains(err.Error(), "circuit breaker") {
				t.Fatalf("another provider on the same endpoint: %v, want the open breaker", err)
			}
			if n := len(f.requests()); n != 5 {
				t.Fatalf("the server saw %d requests, want 5", n)
			}
		})
	}
}

// A bad request says nothing about the endpoint's health.
func TestBreakerIgnoresDeterministicFailures(t *testing.T) {
	f := newFakeAPI(t, wireReply{400, nil, openAIBadRequest})
	p := f.provider(t, "openai", "/v1")
	for i := range 8 {
		if err := chatOnce(p); outcome.ClassOf(err) != outcome.Deterministic {
			t.Fatalf("call %d: %v, want deterministic", i+1, err)
		}
	}
	// Nor does a context that is too long.
	f.answer(wireReply{400, nil, openAITooLong})
	for range 3 {
		if err := chatOnce(p); outcome.ClassOf(err) != outcome.BudgetExhausted {
			t.Fatalf("%v, want budget_exhausted", err)
		}
	}
	if n := len(f.requests()); n != 11 {
		t.Fatalf("the server saw %d requests, want all 11", n)
	}
}

// Failures must be consecutive: a deterministic answer in between shows the
// endpoint is up and starts the count again.
func TestBreakerCountsOnlyConsecutiveTransientFailures(t *testing.T) {
	f := newFakeAPI(t, wireReply{429, map[string]string{"Retry-After": "1"}, openAIRateLimited})
	p := f.provider(t, "openai", "/v1")
	for range 4 {
		_ = chatOnce(p)
	}
	f.answer(wireReply{400, nil, openAIBadRequest})
	_ = chatOnce(p)
	f.answer(wireReply{429, map[string]string{"Retry-After": "1"}, openAIRateLimited})
	for i := range 4 {
		err := chatOnce(p)
		if v := outcome.Classify(err); v.RetryAfter != time.Second || strings.Contains(err.Error(), "circuit breaker") {
			t.Fatalf("call %d after the reset: %v (retry after %s), want the server's own 429", i+1, err, v.RetryAfter)
		}
	}
	if n := len(f.requests()); n != 9 {
		t.Fatalf("the server saw %d requests, want 9", n)
	}
}

// Breakers are per endpoint: one endpoint's outage does not stop another.
func TestBreakerIsPerEndpoint(t *testing.T) {
	down := newFakeAPI(t, wireReply{503, nil, openAIServerError})
	up := newFakeAPI(t, wireReply{200, nil, openAIReply})
	pd := down.provider(t, "openai", "/down/v1")
	for range 6 {
		_ = chatOnce(pd)
	}
	if err := chatOnce(pd); !strings.Contains(err.Error(), "circuit breaker") {
		t.Fatalf("the failing endpoint: %v, want its breaker open", err)
	}
	if err := chatOnce(up.provider(t, "openai", "/up/v1")); err != nil {
		t.Fatalf("a healthy endpoint: %v", err)
	}
	// Same server, other path: another endpoint, another breaker.
	down.answer(wireReply{200, nil, openAIReply})
	if err := chatOnce(down.provider(t, "openai", "/other/v1")); err != nil {
		t.Fatalf("another endpoint on the same host: %v", err)
	}
}
