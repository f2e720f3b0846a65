package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// StatusIDs remembers the id of each issue's sticky status comment once the
// "queued" update wrote it, so that update is one write (no listing to find
// an old one) and the run edits the same comment without listing the issue's
// comments to find it (pipeline.GitHubHost.KnownStatus).
type StatusIDs struct{ rdb redis.UniversalClient }

// NewStatusIDs keeps the ids in Redis.
func NewStatusIDs(rdb redis.UniversalClient) *StatusIDs { return &StatusIDs{rdb: rdb} }

// statusIDTTL outlives any queue wait; a forgotten id only costs a listing.
const statusIDTTL = 30 * 24 * time.Hour

func statusIDKey(repo string, issue int) string {
	return keyPrefix + "status-comment:" + IssueKey(repo, issue)
}

// Get answers the remembered id, 0 when none is.
func (s *StatusIDs) Get(ctx context.Context, repo string, issue int) (int64, error) {
	id, err := s.rdb.Get(ctx, statusIDKey(repo, issue)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("status comment id of %s: %w", IssueKey(repo, issue), err)
	}
	return id, nil
}

// Set remembers id.
func (s *StatusIDs) Set(ctx context.Context, repo string, issue int, id int64) error {
	if err := s.rdb.Set(ctx, statusIDKey(repo, issue), id, statusIDTTL).Err(); err != nil {
		return fmt.Errorf("remember status comment of %s: %w", IssueKey(repo, issue), err)
	}
	return nil
}
