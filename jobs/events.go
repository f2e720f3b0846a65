package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// EventsChannel is the Redis pub/sub channel every worker publishes its
// supervisor and task events on; `bot observe` subscribes to it.
const EventsChannel = keyPrefix + "events"

// Event is one published event, flat so `bot observe --json` lines are greppable.
type Event struct {
	Time   time.Time      `json:"time"`
	Worker string         `json:"worker"`
	Kind   string         `json:"kind"`
	Task   string         `json:"task,omitempty"`
	Stage  string         `json:"stage,omitempty"`
	Err    string         `json:"err,omitempty"`
	Fields map[string]any `json:"fields,omitempty"`
}

// Publisher sends events to the channel. Publishing is best effort: an event
// lost while Redis is away must not fail a task.
type Publisher struct {
	rdb    redis.UniversalClient
	worker string
}

// NewPublisher publishes as the named worker.
func NewPublisher(rdb redis.UniversalClient, worker string) *Publisher {
	return &Publisher{rdb: rdb, worker: worker}
}

// Publish sends one event.
func (p *Publisher) Publish(ctx context.Context, e Event) {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	e.Worker = p.worker
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	_ = p.rdb.Publish(ctx, EventsChannel, b).Err()
}

// Subscribe streams events until ctx ends.
func Subscribe(ctx context.Context, rdb redis.UniversalClient, fn func(Event, []byte)) error {
	sub := rdb.Subscribe(ctx, EventsChannel)
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		return fmt.Errorf("subscribe %s: %w", EventsChannel, err)
	}
	ch := sub.Channel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-ch:
			if !ok {
				return nil
			}
			var e Event
			if json.Unmarshal([]byte(m.Payload), &e) == nil {
				fn(e, []byte(m.Payload))
			}
		}
	}
}
