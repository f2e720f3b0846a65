// Package followup keeps what maintainers asked of Warden on its own pull
// requests until a follow-up attempt answers it: review feedback, failing
// CI evidence, conflicts. Feedback lives in Redis, so a review that arrives
// while a follow-up runs is kept for the next one and never lost.
package followup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/warden-bot/warden/effects"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/jobs"
)

// Item kinds.
const (
	KindReview   = "review"   // a review's body (changes_requested or commented)
	KindInline   = "inline"   // one inline review comment, answered in its thread
	KindComment  = "comment"  // a PR comment mentioning the App or `/warden fix`
	KindCI       = "ci"       // failing checks with their output, annotations and log
	KindConflict = "conflict" // the branch conflicts with its base
)

// Item is one piece of feedback, quoted to the model as the reviewer wrote it.
type Item struct {
	Kind     string `json:"kind"`
	ID       int64  `json:"id,omitempty"` // comment or review id; inline replies go to it
	ReviewID int64  `json:"review_id,omitempty"`
	Author   string `json:"author,omitempty"`
	Body     string `json:"body"`
	Path     string `json:"path,omitempty"`
	Line     int    `json:"line,omitempty"`
	DiffHunk string `json:"diff_hunk,omitempty"`
	CommitID string `json:"commit_id,omitempty"` // an inline comment's commit, which its reply names
	SHA      string `json:"sha,omitempty"`       // the head it was about (ci, conflict)
	At       int64  `json:"at,omitempty"`        // unix nanoseconds it was stored, for order
}

// Key deduplicates an item: a review's inline comments arrive both as their
// own deliveries and in the review's listing.
func (i Item) Key() string {
	if i.ID != 0 {
		return fmt.Sprintf("%s:%d", i.Kind, i.ID)
	}
	return i.Kind + ":" + i.SHA
}

// Store keeps pending feedback, follow-up counts and human-push holds per PR.
type Store struct {
	rdb redis.UniversalClient
	// effects journals the hand-back a release owes (hold.go), in the
	// same Redis as the hold.
	effects *effects.Journal
}

// NewStore wraps a Redis client.
func NewStore(rdb redis.UniversalClient) *Store { return &Store{rdb: rdb, effects: effects.New(rdb)} }

// keep is how long answered keys and counts are remembered.
const keep = 30 * 24 * time.Hour

func key(repo string, pr int, what string) string {
	return fmt.Sprintf("warden:followup:%s#%d:%s", repo, pr, what)
}

// Add stores an item unless it was answered already or is in flight; it
// reports whether it is new.
func (s *Store) Add(ctx context.Context, repo string, pr int, it Item) (bool, error) {
	if it.At == 0 {
		it.At = time.Now().UnixNano()
	}
	b, _ := json.Marshal(it)
	keys := []string{key(repo, pr, "done"), key(repo, pr, "inflight"), key(repo, pr, "pending")}
	n, err := addScript.Run(ctx, s.rdb, keys, it.Key(), b, secs(keep)).Int()
	if err != nil {
		return false, fmt.Errorf("store feedback of %s#%d: %w", repo, pr, err)
	}
	return n == 1, nil
}

// MarkDone remembers items as answered, so late copies are dropped.
func (s *Store) MarkDone(ctx context.Context, repo string, pr int, items ...Item) error {
	if len(items) == 0 {
		return nil
	}
	keys := make([]any, len(items))
	for i, it := range items {
		keys[i] = it.Key()
	}
	done := key(repo, pr, "done")
	pipe := s.rdb.TxPipeline()
	pipe.SAdd(ctx, done, keys...)
	pipe.Expire(ctx, done, keep)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("mark feedback of %s#%d answered: %w", repo, pr, err)
	}
	return nil
}

// Pending counts the entries waiting for a follow-up: pending items and
// whatever a killed follow-up left in flight (its recovery finishes it).
func (s *Store) Pending(ctx context.Context, repo string, pr int) (int64, error) {
	pipe := s.rdb.Pipeline()
	p := pipe.HLen(ctx, key(repo, pr, "pending"))
	f := pipe.HLen(ctx, key(repo, pr, "inflight"))
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("count feedback of %s#%d: %w", repo, pr, err)
	}
	return p.Val() + f.Val(), nil
}

func decodeAll(m map[string]string) []Item {
	out := make([]Item, 0, len(m))
	for _, v := range m {
		var it Item
		if json.Unmarshal([]byte(v), &it) == nil {
			out = append(out, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// Used counts one more follow-up on the PR and returns the count.
func (s *Store) Used(ctx context.Context, repo string, pr int) (int64, error) {
	k := key(repo, pr, "count")
	pipe := s.rdb.TxPipeline()
	n := pipe.Incr(ctx, k)
	pipe.Expire(ctx, k, keep)
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("count follow-ups of %s#%d: %w", repo, pr, err)
	}
	return n.Val(), nil
}

// Busy reports whether the PR has feedback waiting or in flight (a
// follow-up running, or killed and not yet recovered), or a run of its
// issue is changing it: a maintenance PR is not merged under a maintainer's
// request for changes.
func (s *Store) Busy(ctx context.Context, repo string, pr int) (bool, error) {
	n, err := s.rdb.Exists(ctx, key(repo, pr, "pending"), key(repo, pr, "inflight"), key(repo, pr, "run")).Result()
	if err != nil {
		return true, fmt.Errorf("read follow-up state of %s#%d: %w", repo, pr, err)
	}
	return n > 0, nil
}

// runTTL outlives any run, so a run killed for good (its retries spent)
// leaves the PR busy for a bounded time only.
const runTTL = jobs.RunTimeout + time.Hour

// Running marks the PR busy with a run of its issue that continues it (a
// retry on the issue, a relabel, an unblock): a writer asked for a new
// attempt, so the head it is about to change is not merged meanwhile.
func (s *Store) Running(ctx context.Context, repo string, pr int) error {
	if err := s.rdb.Set(ctx, key(repo, pr, "run"), "1", runTTL).Err(); err != nil {
		return fmt.Errorf("mark %s#%d busy with a run: %w", repo, pr, err)
	}
	return nil
}

// RunEnded ends what Running began.
func (s *Store) RunEnded(ctx context.Context, repo string, pr int) error {
	if err := s.rdb.Del(ctx, key(repo, pr, "run")).Err(); err != nil {
		return fmt.Errorf("end the run on %s#%d: %w", repo, pr, err)
	}
	return nil
}

// Skipped notes that a PR evaluation was skipped while busy, so the
// follow-up's end runs it (SkippedEval, then ClearSkipped once queued).
func (s *Store) Skipped(ctx context.Context, repo string, pr int) error {
	return s.rdb.Set(ctx, key(repo, pr, "skipped"), "1", keep).Err()
}

// SkippedEval reports whether an evaluation was skipped; the note stays
// until ClearSkipped, so a failed enqueue is tried again by the next end.
func (s *Store) SkippedEval(ctx context.Context, repo string, pr int) bool {
	n, err := s.rdb.Exists(ctx, key(repo, pr, "skipped")).Result()
	return err == nil && n > 0
}

// ClearSkipped forgets a skipped evaluation once it is queued again.
func (s *Store) ClearSkipped(ctx context.Context, repo string, pr int) error {
	return s.rdb.Del(ctx, key(repo, pr, "skipped")).Err()
}

// Unuse takes back a follow-up that will be tried again (deferred).
func (s *Store) Unuse(ctx context.Context, repo string, pr int) error {
	if err := s.rdb.Decr(ctx, key(repo, pr, "count")).Err(); err != nil {
		return fmt.Errorf("uncount follow-up of %s#%d: %w", repo, pr, err)
	}
	return nil
}

// Held returns who pushed to the branch, or "" when Warden may change it.
func (s *Store) Held(ctx context.Context, repo string, pr int) (string, error) {
	by, err := s.rdb.Get(ctx, key(repo, pr, "hold")).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read hold of %s#%d: %w", repo, pr, err)
	}
	return by, nil
}

// SetIssuePR remembers the open PR an issue's attempt released, so a later
// run of the issue (a retry, a relabel, an unblock, a deferral) continues on
// that PR's head instead of force-pushing its branch from the base.
func (s *Store) SetIssuePR(ctx context.Context, repo string, issue, pr int) error {
	if err := s.rdb.Set(ctx, key(repo, issue, "issue-pr"), pr, keep).Err(); err != nil {
		return fmt.Errorf("remember PR of %s#%d: %w", repo, issue, err)
	}
	return nil
}

// IssuePR is the PR SetIssuePR remembered for the issue, or 0.
func (s *Store) IssuePR(ctx context.Context, repo string, issue int) (int, error) {
	n, err := s.rdb.Get(ctx, key(repo, issue, "issue-pr")).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read PR of %s#%d: %w", repo, issue, err)
	}
	return n, nil
}
