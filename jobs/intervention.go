package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"
)

// interventionKey is a hash of the tasks in NEEDS_INTERVENTION, by issue.
const interventionKey = keyPrefix + "needs_intervention"

// Intervention is a task whose supervisor gave up (restart intensity
// exceeded). It stays listed until a maintainer resets it: `/warden
// retry` or a new trigger label.
type Intervention struct {
	Repo         string    `json:"repo"`
	Issue        int       `json:"issue"`
	Installation int64     `json:"installation"`
	Mode         string    `json:"mode"`
	Reason       string    `json:"reason"`
	Since        time.Time `json:"since"`
}

// Interventions stores them in Redis, visible to every process.
type Interventions struct{ rdb redis.UniversalClient }

// NewInterventions wraps a Redis client.
func NewInterventions(rdb redis.UniversalClient) *Interventions { return &Interventions{rdb: rdb} }

// Mark puts a task in NEEDS_INTERVENTION.
func (i *Interventions) Mark(ctx context.Context, v Intervention) error {
	if v.Since.IsZero() {
		v.Since = time.Now().UTC()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := i.rdb.HSet(ctx, interventionKey, IssueKey(v.Repo, v.Issue), b).Err(); err != nil {
		return fmt.Errorf("mark %s needs intervention: %w", IssueKey(v.Repo, v.Issue), err)
	}
	return nil
}

// Reset takes a task out of NEEDS_INTERVENTION and reports whether it was in.
func (i *Interventions) Reset(ctx context.Context, repo string, issue int) (bool, error) {
	n, err := i.rdb.HDel(ctx, interventionKey, IssueKey(repo, issue)).Result()
	if err != nil {
		return false, fmt.Errorf("reset intervention %s: %w", IssueKey(repo, issue), err)
	}
	return n > 0, nil
}

// List is every task in NEEDS_INTERVENTION, oldest first.
func (i *Interventions) List(ctx context.Context) ([]Intervention, error) {
	m, err := i.rdb.HGetAll(ctx, interventionKey).Result()
	if err != nil {
		return nil, fmt.Errorf("list interventions: %w", err)
	}
	out := make([]Intervention, 0, len(m))
	for _, s := range m {
		var v Intervention
		if json.Unmarshal([]byte(s), &v) == nil {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Since.Before(out[b].Since) })
	return out, nil
}
