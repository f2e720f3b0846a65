package effects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Journal records each effect's intent in Redis under an idempotency key
// before the call and its confirmation after GitHub's answer shows it.
// "Already done" is Done: a confirmed effect, never a written intent. An
// intent left unconfirmed (an error, an answer Warden cannot read, a kill
// between the two writes) stays pending until Sweep re-drives it.
type Journal struct{ rdb redis.UniversalClient }

// New wraps a Redis client.
func New(rdb redis.UniversalClient) *Journal { return &Journal{rdb: rdb} }

// Intent is one effect Warden means to cause on a PR; Key is its
// idempotency key (the effect and what it acts on, e.g. the head).
type Intent struct {
	Key          string `json:"key"`
	Kind         string `json:"kind"`
	Repo         string `json:"repo"`
	Installation int64  `json:"installation"`
	PR           int    `json:"pr"`
	SHA          string `json:"sha,omitempty"`
	// Users and Teams are whom a "reviewers" intent asks: a re-drive asks
	// them again without reading CODEOWNERS (Redrive).
	Users []string `json:"users,omitempty"`
	Teams []string `json:"teams,omitempty"`
	// Source says whom Users and Teams stand for ("code owners of the
	// changed files"), for the status comment.
	Source string `json:"source,omitempty"`
	// Reply is the answer a "reply" intent posts (reply.go).
	Reply *Reply `json:"reply,omitempty"`
	// Push is the commit a "push" intent puts on a branch (push.go).
	Push *Push     `json:"push,omitempty"`
	At   time.Time `json:"at"`
}

const (
	prefix     = "warden:effects:"
	pendingKey = prefix + "pending" // sorted set: key → when last driven
	doneTTL    = 30 * 24 * time.Hour
)

// Begin records the intent before the call (first time kept).
func (j *Journal) Begin(ctx context.Context, it Intent) error {
	if it.At.IsZero() {
		it.At = time.Now()
	}
	b, err := json.Marshal(it)
	if err != nil {
		return fmt.Errorf("encode intent %s: %w", it.Key, err)
	}
	pipe := j.rdb.TxPipeline()
	pipe.Set(ctx, prefix+"intent:"+it.Key, b, doneTTL)
	pipe.ZAddNX(ctx, pendingKey, redis.Z{Score: float64(it.At.Unix()), Member: it.Key})
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("record intent %s: %w", it.Key, err)
	}
	return nil
}

// Confirm records that GitHub's answer showed the effect.
func (j *Journal) Confirm(ctx context.Context, key string) error {
	pipe := j.rdb.TxPipeline()
	pipe.Set(ctx, prefix+"done:"+key, "1", doneTTL)
	pipe.ZRem(ctx, pendingKey, key)
	pipe.Del(ctx, prefix+"intent:"+key)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("confirm effect %s: %w", key, err)
	}
	return nil
}

// Drop forgets an intent GitHub's answer settled without the effect (a
// refused merge, a PR closed before it): nothing happened and nothing is
// owed; the next evaluation decides again.
func (j *Journal) Drop(ctx context.Context, key string) error {
	pipe := j.rdb.TxPipeline()
	pipe.ZRem(ctx, pendingKey, key)
	pipe.Del(ctx, prefix+"intent:"+key)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("drop effect %s: %w", key, err)
	}
	return nil
}

// Undo forgets a confirmation GitHub no longer stands by (the queue
// dropped the PR): the effect may be caused again.
func (j *Journal) Undo(ctx context.Context, key string) error {
	if err := j.rdb.Del(ctx, prefix+"done:"+key).Err(); err != nil {
		return fmt.Errorf("undo effect %s: %w", key, err)
	}
	return nil
}

// Done reports a confirmed effect.
func (j *Journal) Done(ctx context.Context, key string) (bool, error) {
	n, err := j.rdb.Exists(ctx, prefix+"done:"+key).Result()
	if err != nil {
		return false, fmt.Errorf("read effect %s: %w", key, err)
	}
	return n > 0, nil
}

// Pending reports an intent recorded and neither confirmed nor dropped:
// its call may have reached GitHub with the answer lost.
func (j *Journal) Pending(ctx context.Context, key string) (bool, error) {
	n, err := j.rdb.Exists(ctx, prefix+"intent:"+key).Result()
	if err != nil {
		return false, fmt.Errorf("read intent %s: %w", key, err)
	}
	return n > 0, nil
}

// Sweep re-drives every intent unconfirmed for longer than quiet (a
// worker killed mid-effect, an answer Warden could not read): redrive
// queues what re-reads GitHub and acts again. A re-driven intent waits
// another quiet period before the next re-drive, failed or not (one intent
// GitHub keeps refusing must not stop the others); it leaves the journal
// only when confirmed, or dropped (Drop: refused, or moot). The re-drives' errors are returned joined.
func (j *Journal) Sweep(ctx context.Context, now time.Time, quiet time.Duration, redrive func(context.Context, Intent) error) (int, error) {
	keys, err := j.rdb.ZRangeByScore(ctx, pendingKey, &redis.ZRangeBy{Min: "-inf", Max: strconv.FormatInt(now.Add(-quiet).Unix(), 10)}).Result()
	if err != nil {
		return 0, fmt.Errorf("list pending effects: %w", err)
	}
	n, errs := 0, []error(nil)
	for _, k := range keys {
		b, err := j.rdb.Get(ctx, prefix+"intent:"+k).Bytes()
		if errors.Is(err, redis.Nil) { // expired: nothing left to re-drive
			j.rdb.ZRem(ctx, pendingKey, k)
			continue
		}
		if err != nil {
			return n, fmt.Errorf("read intent %s: %w", k, err)
		}
		var it Intent
		if err := json.Unmarshal(b, &it); err != nil {
			return n, fmt.Errorf("decode intent %s: %w", k, err)
		}
		if err := redrive(ctx, it); err != nil {
			errs = append(errs, fmt.Errorf("re-drive %s: %w", k, err))
		} else {
			n++
		}
		j.rdb.ZAddXX(ctx, pendingKey, redis.Z{Score: float64(now.Unix()), Member: k})
	}
	return n, errors.Join(errs...)
}
