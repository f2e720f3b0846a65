package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Key prefix of everything Warden keeps in Redis besides asynq's own keys.
const keyPrefix = "warden:"

// Flags are small per-issue facts kept in Redis: cancel requests.
type Flags struct{ rdb redis.UniversalClient }

// NewFlags wraps a Redis client.
func NewFlags(rdb redis.UniversalClient) *Flags { return &Flags{rdb: rdb} }

func cancelKey(repo string, issue int) string { return keyPrefix + "cancel:" + IssueKey(repo, issue) }

// MaxDefer bounds how long a deferred run waits (deferRun cuts longer ones).
const MaxDefer = 6 * time.Hour

// cancelTTL outlives any run (RunTimeout) so a worker that restarts a crashed
// task still sees the cancel, and any deferral (MaxDefer): a task deferred
// just before the cancel still finds the flag when it starts.
const cancelTTL = MaxDefer + RunTimeout + time.Hour

// SetCancel records that the issue's task must stop.
func (f *Flags) SetCancel(ctx context.Context, repo string, issue int) error {
	if err := f.rdb.Set(ctx, cancelKey(repo, issue), "1", cancelTTL).Err(); err != nil {
		return fmt.Errorf("set cancel flag %s: %w", IssueKey(repo, issue), err)
	}
	return nil
}

// ClearCancel forgets a cancel request, when the issue is queued again.
func (f *Flags) ClearCancel(ctx context.Context, repo string, issue int) error {
	if err := f.rdb.Del(ctx, cancelKey(repo, issue)).Err(); err != nil {
		return fmt.Errorf("clear cancel flag %s: %w", IssueKey(repo, issue), err)
	}
	return nil
}

// Canceled reports whether the issue's task must stop.
func (f *Flags) Canceled(ctx context.Context, repo string, issue int) (bool, error) {
	err := f.rdb.Get(ctx, cancelKey(repo, issue)).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read cancel flag %s: %w", IssueKey(repo, issue), err)
	}
	return true, nil
}

// RefusalWindow is how often one user is told on one issue that they may
// not command Warden: each reply costs the installation's write limits.
const RefusalWindow = time.Hour

// FirstRefusal reports whether user has not been refused on the issue
// within RefusalWindow, and remembers that they now are.
func (f *Flags) FirstRefusal(ctx context.Context, repo string, issue int, user string) (bool, error) {
	ok, err := f.rdb.SetNX(ctx, keyPrefix+"refused:"+IssueKey(repo, issue)+":"+user, "1", RefusalWindow).Result()
	if err != nil {
		return false, fmt.Errorf("refusal flag %s %s: %w", IssueKey(repo, issue), user, err)
	}
	return ok, nil
}
