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

// reserveTTL bounds how long a delivery being processed holds its id.
const reserveTTL = time.Minute

// Begin reserves the id; seen is true when it was reserved or done before.
func (d *Deliveries) Begin(ctx context.Context, id string) (seen bool, err error) {
	ok, err := d.rdb.SetNX(ctx, deliveryKey(id), "pending", reserveTTL).Result()
	if err != nil {
		return false, fmt.Errorf("reserve delivery %s: %w", id, err)
	}
	return !ok, nil
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
