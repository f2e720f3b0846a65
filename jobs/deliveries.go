package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Deliveries remembers webhook delivery ids so a redelivered or duplicated
// delivery queues nothing. Only deliveries that were answered 200 or 202 are
// remembered: Begin reserves the id briefly, Commit keeps it, Abort frees it
// so GitHub's redelivery of a 503 is processed.
type Deliveries struct {
	rdb redis.UniversalClient
	ttl time.Duration
}

// NewDeliveries remembers ids for ttl (days, so redeliveries are caught).
func NewDeliveries(rdb redis.UniversalClient, ttl time.Duration) *Deliveries {
	return &Deliveries{rdb: rdb, ttl: ttl}
}

func deliveryKey(id string) string { return keyPrefix + "delivery:" + id }

// reserveTTL bounds how long a delivery being processed holds its id. A
// request that dies holding it (or whose release is lost with Redis) makes
// copies answer 503 for this long; one that outlives it lets a copy in, and
// the enqueues are idempotent (TaskIDs), so short is the better error.
const reserveTTL = 20 * time.Second

// DeliveryState is what Begin found.
type DeliveryState int

// Delivery states.
const (
	DeliveryNew     DeliveryState = iota // reserved now: process it
	DeliveryPending                      // reserved by a handler that has not answered (or died)
	DeliveryDone                         // answered 200/202 before
)

// Begin reserves the id, or says who holds it. A pending id is not a
// duplicate yet: its handler may still fail and answer 503.
func (d *Deliveries) Begin(ctx context.Context, id string) (DeliveryState, error) {
	ok, err := d.rdb.SetNX(ctx, deliveryKey(id), "pending", reserveTTL).Result()
	if err != nil {
		return 0, fmt.Errorf("reserve delivery %s: %w", id, err)
	}
	if ok {
		return DeliveryNew, nil
	}
	v, err := d.rdb.Get(ctx, deliveryKey(id)).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return DeliveryPending, nil // freed in between: the caller asks again
	case err != nil:
		return 0, fmt.Errorf("read delivery %s: %w", id, err)
	case v == "done":
		return DeliveryDone, nil
	}
	return DeliveryPending, nil
}

// Commit keeps the id for the TTL.
func (d *Deliveries) Commit(ctx context.Context, id string) error {
	if err := d.rdb.Set(ctx, deliveryKey(id), "done", d.ttl).Err(); err != nil {
		return fmt.Errorf("remember delivery %s: %w", id, err)
	}
	return nil
}

// Abort frees the id so a redelivery is processed.
func (d *Deliveries) Abort(ctx context.Context, id string) error {
	if err := d.rdb.Del(ctx, deliveryKey(id)).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("forget delivery %s: %w", id, err)
	}
	return nil
}
