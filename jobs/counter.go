package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Counter counts failure fingerprints per issue across attempts, for the
// circuit breaker. Counts expire after a week of quiet.
type Counter struct{ rdb redis.UniversalClient }

// NewCounter wraps a Redis client.
func NewCounter(rdb redis.UniversalClient) *Counter { return &Counter{rdb: rdb} }

// Get reads key's count (0 when none).
func (c *Counter) Get(ctx context.Context, key string) (int64, error) {
	n, err := c.rdb.Get(ctx, counterKey(key)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read count: %w", err)
	}
	return n, nil
}

// Incr adds one to key's count and returns the new count.
func (c *Counter) Incr(ctx context.Context, key string) (int64, error) {
	k := counterKey(key)
	pipe := c.rdb.TxPipeline()
	n := pipe.Incr(ctx, k)
	pipe.Expire(ctx, k, 7*24*time.Hour)
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("count fingerprint: %w", err)
	}
	return n.Val(), nil
}

func counterKey(key string) string { return keyPrefix + "fp:" + key }

// CheckFixesKey counts the CI fixes queued for the issue's PR (lifecycle
// spends them; a maintainer's retry or relabel resets them, see clearFor).
func CheckFixesKey(repo string, issue int) string { return IssueKey(repo, issue) + ":check-fixes" }
