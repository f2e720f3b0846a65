package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrLocked means another worker holds the issue's run lock.
var ErrLocked = errors.New("another worker is running this issue")

// Locks are per-issue run locks in Redis. asynq's TaskID keeps one task per
// issue in the queue, but a deferred follow-up or a crashed worker's lease
// recovery can still put two runs of one issue side by side; the lock stops
// the second from touching the same branch.
type Locks struct {
	rdb redis.UniversalClient
	ttl time.Duration
}

// RunLockTTL is how long a run lock outlives its holder's last refresh. It
// matches asynq's 30 s task lease: a worker killed mid-run frees the issue
// before asynq's recoverer hands the task back (at least 30 s after the
// lease expired), so the recovered run starts instead of bouncing off a
// dead worker's lock for minutes.
const RunLockTTL = 30 * time.Second

// NewLocks holds locks for ttl, refreshed while the run lives.
func NewLocks(rdb redis.UniversalClient, ttl time.Duration) *Locks { return &Locks{rdb: rdb, ttl: ttl} }

// Lock is one held run lock.
type Lock struct {
	l     *Locks
	key   string
	token string
}

// Acquire takes the lock for an issue key or returns ErrLocked.
func (l *Locks) Acquire(ctx context.Context, issueKey string) (*Lock, error) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	lk := &Lock{l: l, key: keyPrefix + "lock:" + issueKey, token: hex.EncodeToString(b)}
	ok, err := l.rdb.SetNX(ctx, lk.key, lk.token, l.ttl).Result()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", issueKey, err)
	}
	if !ok {
		return nil, ErrLocked
	}
	return lk, nil
}

var releaseScript = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`)
var refreshScript = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) end return 0`)

// Release frees the lock if this holder still owns it.
func (lk *Lock) Release(ctx context.Context) {
	_ = releaseScript.Run(ctx, lk.l.rdb, []string{lk.key}, lk.token).Err()
}

// Keep refreshes the lock until ctx ends; losing it cancels the run, since
// another worker may now take the issue.
func (lk *Lock) Keep(ctx context.Context, cancel context.CancelCauseFunc) {
	t := time.NewTicker(lk.l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := refreshScript.Run(ctx, lk.l.rdb, []string{lk.key}, lk.token, lk.l.ttl.Milliseconds()).Int()
			if err == nil && n == 0 {
				cancel(fmt.Errorf("run lock %s lost", lk.key))
				return
			}
		}
	}
}

// Held reports whether some worker holds the issue's run lock.
func (l *Locks) Held(ctx context.Context, issueKey string) (bool, error) {
	n, err := l.rdb.Exists(ctx, keyPrefix+"lock:"+issueKey).Result()
	return n > 0, err
}

// Wait takes the lock for key like Acquire, polling while another holder
// has it; it answers ErrLocked when max passes first.
func (l *Locks) Wait(ctx context.Context, key string, max time.Duration) (*Lock, error) {
	deadline := time.Now().Add(max)
	for {
		lk, err := l.Acquire(ctx, key)
		if !errors.Is(err, ErrLocked) || !time.Now().Before(deadline) {
			return lk, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// StatusKey names the lock under which an issue's status comment is first
// written: by the "queued" update, or by the run when it lists the issue's
// comments (see pipeline.GitHubHost.StatusLock).
func StatusKey(repo string, issue int) string { return IssueKey(repo, issue) + ":status" }
