package followup

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/effects"
)

// A hold remembers the latest push it stands for (GitHub's time of it), so
// a `/warden retry` written before that push — a late delivery, or one
// redelivered after a 5xx — does not hand back a branch someone pushed to
// since: only a retry written after the last push does.

var holdScript = redis.NewScript(`
local fresh = redis.call('SET', KEYS[1], ARGV[1], 'NX')
local at = tonumber(ARGV[2])
if at > 0 and at > tonumber(redis.call('GET', KEYS[2]) or '0') then
  redis.call('SET', KEYS[2], ARGV[2])
end
if fresh then return 1 end
return 0`)

// The release records the hand-back in the same step (KEYS[3]): lifting
// the hold and owing its queued work are one fact, so a delivery that dies
// after the release finds the hand-back still owed (HandBackOwed) instead
// of a free branch with nothing queued.
var releaseScript = redis.NewScript(`
local at = tonumber(redis.call('GET', KEYS[2]) or '0')
local asof = tonumber(ARGV[1])
if asof > 0 and at > asof then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SET', KEYS[3], '1')
return 1`)

// HoldSince records that by pushed to the branch at at (GitHub's time;
// zero when unknown); it reports whether the hold is new (so Warden says
// so once). Later pushes move the hold's time forward. A hold has no
// lifetime: only a writer's `/warden retry` or the PR's closing (Forget)
// lifts it, never the clock.
func (s *Store) HoldSince(ctx context.Context, repo string, pr int, by string, at time.Time) (bool, error) {
	n, err := holdScript.Run(ctx, s.rdb, []string{key(repo, pr, "hold"), key(repo, pr, "hold-at")}, by, unix(at)).Int()
	if err != nil {
		return false, fmt.Errorf("hold %s#%d: %w", repo, pr, err)
	}
	return n == 1, nil
}

// ReleaseIfBefore lifts the hold for a `/warden retry` written at asOf,
// unless someone pushed after that (false: the hold stays). A release owes
// the hand-back's queued work until HandedBack. The hand-back's intent is
// begun in the effects journal before the release, so the debt never
// exists without it: if the delivery that released dies before queueing
// the work, the effects sweep queues it (GitHub does not redeliver a
// failed webhook by itself). Not released: the intent is dropped.
func (s *Store) ReleaseIfBefore(ctx context.Context, repo string, installation int64, pr int, asOf time.Time) (bool, error) {
	it := effects.HandBackIntent(repo, installation, pr)
	if err := s.effects.Begin(ctx, it); err != nil {
		return false, fmt.Errorf("release hold of %s#%d: %w", repo, pr, err)
	}
	n, err := releaseScript.Run(ctx, s.rdb, []string{key(repo, pr, "hold"), key(repo, pr, "hold-at"), key(repo, pr, "handback")}, unix(asOf)).Int()
	if err != nil {
		return false, fmt.Errorf("release hold of %s#%d: %w", repo, pr, err)
	}
	if n == 1 {
		return true, nil
	}
	if owed, err := s.HandBackOwed(ctx, repo, pr); err == nil && !owed { // an earlier release's debt keeps its intent
		_ = s.effects.Drop(ctx, it.Key) // left behind, the sweep drops it: hold in place, nothing owed
	}
	return false, nil
}

// HandBackOwed reports a released hold whose hand-back (the reply, the
// follow-up or evaluation it queues) is not known queued yet.
func (s *Store) HandBackOwed(ctx context.Context, repo string, pr int) (bool, error) {
	n, err := s.rdb.Exists(ctx, key(repo, pr, "handback")).Result()
	if err != nil {
		return false, fmt.Errorf("read hand-back of %s#%d: %w", repo, pr, err)
	}
	return n > 0, nil
}

// HandedBack records that the hand-back's work is queued: the debt is
// cleared, then its intent confirmed (in that order: the intent outlives
// the debt, never the reverse).
func (s *Store) HandedBack(ctx context.Context, repo string, pr int) error {
	if err := s.rdb.Del(ctx, key(repo, pr, "handback")).Err(); err != nil {
		return fmt.Errorf("clear hand-back of %s#%d: %w", repo, pr, err)
	}
	return s.effects.Confirm(ctx, effects.HandBackKey(repo, pr))
}

// SettleHandBack ends a hand-back intent the sweep found with nothing
// owed: a hold still in place means the release never happened (dropped);
// otherwise the debt was settled before its confirmation was written.
func (s *Store) SettleHandBack(ctx context.Context, repo string, pr int) error {
	by, err := s.Held(ctx, repo, pr)
	if err != nil {
		return err
	}
	if by != "" {
		return s.effects.Drop(ctx, effects.HandBackKey(repo, pr))
	}
	return s.effects.Confirm(ctx, effects.HandBackKey(repo, pr))
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}
