package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/outcome"
)

// HistoryLimit bounds each repository's history list.
const HistoryLimit = 1000

// History keeps every attempt's outcome record per repository, newest first,
// so failure classes and fingerprints can be analysed over time.
type History struct{ rdb redis.UniversalClient }

// NewHistory wraps a Redis client.
func NewHistory(rdb redis.UniversalClient) *History { return &History{rdb: rdb} }

// Entry is one history line.
type Entry struct {
	Time   time.Time `json:"time"`
	Repo   string    `json:"repo"`
	Issue  int       `json:"issue"`
	Record outcome.Record
}

func historyKey(repo string) string { return keyPrefix + "history:" + repo }

// Append records an outcome.
func (h *History) Append(ctx context.Context, repo string, issue int, rec outcome.Record) error {
	b, err := json.Marshal(Entry{Time: time.Now().UTC(), Repo: repo, Issue: issue, Record: rec})
	if err != nil {
		return err
	}
	pipe := h.rdb.TxPipeline()
	pipe.LPush(ctx, historyKey(repo), b)
	pipe.LTrim(ctx, historyKey(repo), 0, HistoryLimit-1)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("append history %s: %w", repo, err)
	}
	return nil
}

// List returns up to n raw entries for repo, newest first.
func (h *History) List(ctx context.Context, repo string, n int) ([]string, error) {
	out, err := h.rdb.LRange(ctx, historyKey(repo), 0, int64(n-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("read history %s: %w", repo, err)
	}
	return out, nil
}
