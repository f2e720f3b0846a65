package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
	"github.com/warden-bot/warden/outcome"
)

// One breaker per endpoint, shared by every task in the process, so an
// outage fails fast instead of burning every task's retries.
var (
	breakersMu sync.Mutex
	breakers   = map[string]*gobreaker.CircuitBreaker[ChatResponse]{}
)

type breakerProvider struct {
	p  Provider
	cb *gobreaker.CircuitBreaker[ChatResponse]
}

func withBreaker(endpoint string, p Provider) Provider {
	breakersMu.Lock()
	defer breakersMu.Unlock()
	cb, ok := breakers[endpoint]
	if !ok {
		cb = gobreaker.NewCircuitBreaker[ChatResponse](gobreaker.Settings{
			Name:    endpoint,
			Timeout: 30 * time.Second,
			ReadyToTrip: func(c gobreaker.Counts) bool {
				return c.ConsecutiveFailures >= 5
			},
			// Only transient failures say the endpoint is down; a bad request does not.
			IsSuccessful: func(err error) bool {
				return err == nil || outcome.ClassOf(err) != outcome.Transient
			},
		})
		breakers[endpoint] = cb
	}
	return &breakerProvider{p: p, cb: cb}
}

func (b *breakerProvider) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	resp, err := b.cb.Execute(func() (ChatResponse, error) { return b.p.Chat(ctx, req) })
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return resp, &outcome.Error{Class: outcome.Transient, Stage: req.Stage, Msg: "the model endpoint's circuit breaker is open after repeated failures", Err: err, RetryAfter: 30 * time.Second}
	}
	return resp, err
}
