package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/supervisor"
)

// systemicKey prefixes each installation's recent terminal failures (a
// sorted set by time, see systemicKeyOf); Queue.Resume deletes its own.
const systemicKey = keyPrefix + "systemic"

// FailureLog is the systemic detector's Redis store, shared by every worker.
type FailureLog struct{ rdb redis.UniversalClient }

// NewFailureLog wraps a Redis client.
func NewFailureLog(rdb redis.UniversalClient) *FailureLog { return &FailureLog{rdb: rdb} }

// Record implements supervisor.FailureLog.
func (l *FailureLog) Record(ctx context.Context, f supervisor.Failure, since time.Time) ([]supervisor.Failure, error) {
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	var rng *redis.StringSliceCmd
	key := systemicKeyOf(f.Scope)
	_, err = l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZAdd(ctx, key, redis.Z{Score: float64(f.At.UnixMilli()), Member: b})
		p.ZRemRangeByScore(ctx, key, "-inf", "("+strconv.FormatInt(since.UnixMilli(), 10))
		p.Expire(ctx, key, 24*time.Hour)
		rng = p.ZRange(ctx, key, 0, -1)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("systemic failure log: %w", err)
	}
	var out []supervisor.Failure
	for _, s := range rng.Val() {
		var r supervisor.Failure
		if json.Unmarshal([]byte(s), &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// PausedIssues remembers the "Warden paused" issue of each repository so
// that a second pause updates it instead of opening another.
type PausedIssues struct{ rdb redis.UniversalClient }

// NewPausedIssues wraps a Redis client.
func NewPausedIssues(rdb redis.UniversalClient) *PausedIssues { return &PausedIssues{rdb: rdb} }

func pausedKey(repo string) string { return keyPrefix + "paused-issue:" + repo }

// Get is the repository's paused issue, or 0.
func (p *PausedIssues) Get(ctx context.Context, repo string) (int, error) {
	n, err := p.rdb.Get(ctx, pausedKey(repo)).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("paused issue of %s: %w", repo, err)
	}
	return n, nil
}

// Set records the repository's paused issue.
func (p *PausedIssues) Set(ctx context.Context, repo string, n int) error {
	if err := p.rdb.Set(ctx, pausedKey(repo), n, 0).Err(); err != nil {
		return fmt.Errorf("record paused issue of %s: %w", repo, err)
	}
	return nil
}
