package jobs

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Fair share. asynq serves one queue in arrival order, so 300 issues
// labelled at once in one repository held every other repository's issue
// behind them. Tasks stay in asynq (durable, one TaskID per issue,
// cancelable by deleting them) and a Gate decides, atomically in Redis, whether
// a task a worker just took may start now; one that may not goes back to the
// queue in about a second (ErrRepoBusy, not counted against its retries) and
// the worker takes the next one.
//
// Why not asynq's own tools: queue priorities are fixed when the server
// starts (no queue per repository), weighted or strict, and its TaskID is
// unique per queue only, so spreading one issue's tasks over several queues
// would lose "one task per issue"; group aggregation batches tasks into one
// new task, which loses the TaskID and cancel by issue as well.
//
// The rule, per task of installation I and repository R:
//   - R runs WARDEN_MAX_PER_REPO tasks already: wait;
//   - another installation with waiting work runs fewer tasks than I, or as
//     many but started one less recently: wait (round robin of installations);
//   - another repository of I with waiting work runs fewer tasks than R, or
//     as many but started one less recently: wait (round robin of repositories);
//   - otherwise start, taking a slot leased like the run lock.
//
// "Waiting work" is a repository whose task was queued or sent back in the
// last fairWaitHorizon: a mark that expires by itself, so a crash or a cancel
// cannot leave a repository waiting for good (at worst it holds others back
// for the horizon).

// ErrRepoBusy sends a task back to the queue because it is not its
// repository's turn. It is an ErrLocked: asynq does not count it as a failure.
var ErrRepoBusy = fmt.Errorf("%w: not this repository's turn", ErrLocked)

const (
	fairRunning = keyPrefix + "{fair}:running" // zset "inst|repo|task" → lease expiry (ms)
	fairWaiting = keyPrefix + "{fair}:waiting" // zset "inst|repo" → last time seen waiting (ms)
	fairStarted = keyPrefix + "{fair}:started" // zset "i:inst", "r:repo" → last start (ms)
	// fairWaitHorizon is how long a waiting mark lasts: a task sent back
	// returns in about a second, so a repository that still waits renews it.
	fairWaitHorizon = 10 * time.Second
)

var gateScript = redis.NewScript(`
local now, lease, horizon, cap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local inst, repo, task = ARGV[5], ARGV[6], ARGV[7]
local me = inst .. '|' .. repo
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
redis.call('zremrangebyscore', KEYS[2], '-inf', now - horizon)
redis.call('zremrangebyscore', KEYS[3], '-inf', now - 86400000)
local runI, runR = {}, {}
for _, m in ipairs(redis.call('zrange', KEYS[1], 0, -1)) do
  local i, r, t = string.match(m, '^([^|]*)|([^|]*)|(.*)$')
  if t == task and i .. '|' .. r == me then
    redis.call('zadd', KEYS[1], now + lease, m)
    return 1
  end
  runI[i] = (runI[i] or 0) + 1
  runR[i .. '|' .. r] = (runR[i .. '|' .. r] or 0) + 1
end
local function deny()
  redis.call('zadd', KEYS[2], now, me)
  redis.call('pexpire', KEYS[2], 3600000)
  return 0
end
local function started(m) return tonumber(redis.call('zscore', KEYS[3], m)) or 0 end
local myR, myI = runR[me] or 0, runI[inst] or 0
if myR >= cap then return deny() end
local myRS, myIS = started('r:' .. repo), started('i:' .. inst)
for _, w in ipairs(redis.call('zrange', KEYS[2], 0, -1)) do
  local i, r = string.match(w, '^([^|]*)|(.*)$')
  local rr = runR[w] or 0
  if w ~= me and rr < cap then
    if i ~= inst then
      local ri, si = runI[i] or 0, started('i:' .. i)
      if ri < myI or (ri == myI and si < myIS) then return deny() end
    elseif rr < myR or (rr == myR and started('r:' .. r) < myRS) then
      return deny()
    end
  end
end
redis.call('zadd', KEYS[1], now + lease, me .. '|' .. task)
redis.call('zrem', KEYS[2], me)
redis.call('zadd', KEYS[3], now, 'i:' .. inst, now, 'r:' .. repo)
-- TTLs only so that idle keys go away: members are pruned by their scores.
redis.call('pexpire', KEYS[1], 10800000)
redis.call('pexpire', KEYS[3], 86400000)
return 1
`)

// Gate decides which taken task may start (see the rule above).
type Gate struct {
	rdb   redis.UniversalClient
	cap   int
	lease time.Duration
}

// NewGate allows at most perRepo running tasks per repository.
func NewGate(rdb redis.UniversalClient, perRepo int) *Gate {
	return &Gate{rdb: rdb, cap: max(perRepo, 1), lease: RunLockTTL}
}

// Slot is a started task's place in the running set.
type Slot struct {
	g      *Gate
	member string
}

// Take starts the task or answers ErrRepoBusy.
func (g *Gate) Take(ctx context.Context, inst int64, repo, task string) (*Slot, error) {
	i := strconv.FormatInt(inst, 10)
	ok, err := gateScript.Run(ctx, g.rdb, []string{fairRunning, fairWaiting, fairStarted},
		time.Now().UnixMilli(), g.lease.Milliseconds(), fairWaitHorizon.Milliseconds(), g.cap, i, repo, task).Int()
	if err != nil {
		return nil, fmt.Errorf("fair share gate for %s: %w", repo, err)
	}
	if ok == 0 {
		return nil, ErrRepoBusy
	}
	return &Slot{g: g, member: i + "|" + repo + "|" + task}, nil
}

// Keep renews the slot's lease until ctx ends.
func (s *Slot) Keep(ctx context.Context) {
	t := time.NewTicker(s.g.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.g.rdb.ZAddXX(ctx, fairRunning, redis.Z{Score: float64(time.Now().Add(s.g.lease).UnixMilli()), Member: s.member})
		}
	}
}

// Release frees the slot.
func (s *Slot) Release(ctx context.Context) {
	_ = s.g.rdb.ZRem(ctx, fairRunning, s.member).Err()
}

// markWaiting is the intake's part: the repository has work waiting (in the
// enqueue's existing round trip).
func markWaiting(ctx context.Context, pl redis.Pipeliner, inst int64, repo string) {
	pl.ZAdd(ctx, fairWaiting, redis.Z{Score: float64(time.Now().UnixMilli()), Member: strconv.FormatInt(inst, 10) + "|" + repo})
	pl.PExpire(ctx, fairWaiting, time.Hour)
}

// busyDelay is how long a task sent back by the gate waits before it is
// taken again (asynq forwards it within TaskCheckInterval-like checks).
func busyDelay() time.Duration {
	return 500*time.Millisecond + rand.N(500*time.Millisecond)
}

// isBusy reports a task sent back by the gate.
func isBusy(err error) bool { return errors.Is(err, ErrRepoBusy) }
