package effects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// A proposal is a review request kept for later: a run knows whom a PR's
// change concerns (CODEOWNERS), but for a maintenance PR only the base
// branch's rules, read when the PR is evaluated, say whether anyone must
// review. It is not an intent: nothing re-drives it until RequestReview
// begins it. Its note is the status comment's sentence once it was made.

// Propose keeps it until an evaluation decides.
func (j *Journal) Propose(ctx context.Context, it Intent) error {
	b, err := json.Marshal(it)
	if err != nil {
		return fmt.Errorf("encode proposal %s: %w", it.Key, err)
	}
	if err := j.rdb.Set(ctx, prefix+"proposal:"+it.Key, b, doneTTL).Err(); err != nil {
		return fmt.Errorf("keep proposal %s: %w", it.Key, err)
	}
	return nil
}

// Proposal returns the review request kept under key, if any.
func (j *Journal) Proposal(ctx context.Context, key string) (Intent, bool, error) {
	b, err := j.rdb.Get(ctx, prefix+"proposal:"+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return Intent{}, false, nil
	}
	if err != nil {
		return Intent{}, false, fmt.Errorf("read proposal %s: %w", key, err)
	}
	var it Intent
	if err := json.Unmarshal(b, &it); err != nil {
		return Intent{}, false, fmt.Errorf("decode proposal %s: %w", key, err)
	}
	return it, true, nil
}

// SetNote keeps what the status comment says about the effect under key.
func (j *Journal) SetNote(ctx context.Context, key, note string) error {
	if err := j.rdb.Set(ctx, prefix+"note:"+key, note, doneTTL).Err(); err != nil {
		return fmt.Errorf("keep note of %s: %w", key, err)
	}
	return nil
}

// Note is what SetNote kept ("" when nothing).
func (j *Journal) Note(ctx context.Context, key string) (string, error) {
	s, err := j.rdb.Get(ctx, prefix+"note:"+key).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read note of %s: %w", key, err)
	}
	return s, nil
}
