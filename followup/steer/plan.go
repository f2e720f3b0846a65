package steer

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// SavePlan keeps the plan an attempt stopped with until a writer approves
// it, replacing any earlier one of the issue.
func (s *Store) SavePlan(ctx context.Context, repo string, issue int, plan []byte) error {
	if err := s.rdb.Set(ctx, key(repo, issue, "plan"), plan, keep).Err(); err != nil {
		return fmt.Errorf("keep plan of %s#%d: %w", repo, issue, err)
	}
	return nil
}

// TakePlan hands out the awaiting plan once: an approved plan is used by
// one run, and a second approve finds nothing to continue.
func (s *Store) TakePlan(ctx context.Context, repo string, issue int) ([]byte, bool, error) {
	b, err := s.rdb.GetDel(ctx, key(repo, issue, "plan")).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("take plan of %s#%d: %w", repo, issue, err)
	}
	return b, true, nil
}

// Awaiting reports whether a plan of the issue waits for approval.
func (s *Store) Awaiting(ctx context.Context, repo string, issue int) (bool, error) {
	n, err := s.rdb.Exists(ctx, key(repo, issue, "plan")).Result()
	if err != nil {
		return false, fmt.Errorf("read plan of %s#%d: %w", repo, issue, err)
	}
	return n == 1, nil
}

// Discard drops the awaiting plan (a cancel, a re-plan); it reports
// whether there was one.
func (s *Store) Discard(ctx context.Context, repo string, issue int) (bool, error) {
	n, err := s.rdb.Del(ctx, key(repo, issue, "plan")).Result()
	if err != nil {
		return false, fmt.Errorf("discard plan of %s#%d: %w", repo, issue, err)
	}
	return n == 1, nil
}
