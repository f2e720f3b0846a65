package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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

// fingerprintsKey counts failures by (class, repo, fingerprint) across all
// repositories, for the dashboard's top fingerprints. The set keeps the most
// frequent fingerprintsKept and is forgotten after a quiet fingerprintsTTL.
const (
	fingerprintsKey  = keyPrefix + "fingerprints"
	fingerprintsKept = 100
	fingerprintsTTL  = 7 * 24 * time.Hour
)

// FingerprintCount is one of the most frequent failure fingerprints.
type FingerprintCount struct {
	Class, Repo, Fingerprint string
	Count                    float64
}

// TopFingerprints returns the n most frequent failure fingerprints.
func (h *History) TopFingerprints(ctx context.Context, n int) ([]FingerprintCount, error) {
	zs, err := h.rdb.ZRevRangeWithScores(ctx, fingerprintsKey, 0, int64(n-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("read top fingerprints: %w", err)
	}
	out := make([]FingerprintCount, 0, len(zs))
	for _, z := range zs {
		f := strings.SplitN(fmt.Sprint(z.Member), " ", 3)
		if len(f) == 3 {
			out = append(out, FingerprintCount{Class: f[0], Repo: f[1], Fingerprint: f[2], Count: z.Score})
		}
	}
	return out, nil
}

// Append records an outcome.
func (h *History) Append(ctx context.Context, repo string, issue int, rec outcome.Record) error {
	b, err := json.Marshal(Entry{Time: time.Now().UTC(), Repo: repo, Issue: issue, Record: rec})
	if err != nil {
		return err
	}
	// A plain pipeline, not MULTI: the two keys may live on different
	// Cluster nodes, and neither write needs the other to be atomic.
	pipe := h.rdb.Pipeline()
	pipe.LPush(ctx, historyKey(repo), b)
	pipe.LTrim(ctx, historyKey(repo), 0, HistoryLimit-1)
	if rec.Outcome != outcome.Completed && rec.Fingerprint != "" {
		member := string(rec.FailureClass) + " " + repo + " " + rec.Fingerprint
		pipe.ZIncrBy(ctx, fingerprintsKey, 1, member)
		pipe.ZRemRangeByRank(ctx, fingerprintsKey, 0, -fingerprintsKept-1)
		pipe.Expire(ctx, fingerprintsKey, fingerprintsTTL)
	}
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
