package followup

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// In-flight feedback. A follow-up never deletes feedback before it acts on
// it: Take moves the pending items into the PR's in-flight record, where a
// recovered task (asynq hands a killed worker's task to another one, under
// the same issue run lock) finds them again. An item leaves the record only
// once answered: after the commit is pushed and its reply posted (Answered,
// Finish), or back to pending when the attempt will be tried again
// (Requeue). The record also remembers the commit pushed and the follow-up's
// number, so a recovery after the push posts the replies instead of making
// a second commit, and counts the follow-up once.

// Meta fields of the in-flight hash; item keys always hold a colon.
const (
	metaPushed = "pushed"
	metaCount  = "count"
)

// addScript stores an item unless it was answered or is in flight, in one
// step: a copy delivered while a follow-up takes the feedback is never
// queued a second time.
var addScript = redis.NewScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
local n = redis.call('HSETNX', KEYS[3], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[3], ARGV[3])
return n`)

// takeScript moves every pending item into the in-flight record and
// returns the whole record (a crashed attempt's items included).
var takeScript = redis.NewScript(`
local p = redis.call('HGETALL', KEYS[1])
for i = 1, #p, 2 do redis.call('HSET', KEYS[2], p[i], p[i+1]) end
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
return redis.call('HGETALL', KEYS[2])`)

// requeueScript moves the in-flight items back to pending, meta dropped.
var requeueScript = redis.NewScript(`
local f = redis.call('HGETALL', KEYS[2])
for i = 1, #f, 2 do
  if string.find(f[i], ':', 1, true) then redis.call('HSETNX', KEYS[1], f[i], f[i+1]) end
end
redis.call('DEL', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return 1`)

// Taken is what a follow-up holds: the items to answer and, after a
// recovery, what the earlier try already did.
type Taken struct {
	Items  []Item
	Pushed string // the commit an earlier try pushed; "" before the push
	Count  int64  // the follow-up's number, once counted
}

func secs(d interface{ Seconds() float64 }) int64 { return int64(d.Seconds()) }

// Take moves the pending feedback in flight and returns everything in
// flight. The caller holds the run lock: nobody else takes it.
func (s *Store) Take(ctx context.Context, repo string, pr int) (Taken, error) {
	raw, err := takeScript.Run(ctx, s.rdb, []string{key(repo, pr, "pending"), key(repo, pr, "inflight")}, secs(keep)).StringSlice()
	if err != nil {
		return Taken{}, fmt.Errorf("take feedback of %s#%d: %w", repo, pr, err)
	}
	m := make(map[string]string, len(raw)/2)
	for i := 0; i+1 < len(raw); i += 2 {
		m[raw[i]] = raw[i+1]
	}
	t := Taken{Pushed: m[metaPushed]}
	t.Count, _ = strconv.ParseInt(m[metaCount], 10, 64)
	delete(m, metaPushed)
	delete(m, metaCount)
	t.Items = decodeAll(m)
	return t, nil
}

// Adopt puts items found by the follow-up itself (a review's inline
// comments) in flight, taking them out of pending if their own delivery
// came first.
func (s *Store) Adopt(ctx context.Context, repo string, pr int, items ...Item) error {
	if len(items) == 0 {
		return nil
	}
	pipe := s.rdb.TxPipeline()
	for _, it := range items {
		b, _ := json.Marshal(it)
		pipe.HDel(ctx, key(repo, pr, "pending"), it.Key())
		pipe.HSet(ctx, key(repo, pr, "inflight"), it.Key(), b)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("adopt feedback of %s#%d: %w", repo, pr, err)
	}
	return nil
}

// Note records a fact of the running follow-up (metaPushed, metaCount).
func (s *Store) note(ctx context.Context, repo string, pr int, field, value string) error {
	if err := s.rdb.HSet(ctx, key(repo, pr, "inflight"), field, value).Err(); err != nil {
		return fmt.Errorf("note %s of %s#%d: %w", field, repo, pr, err)
	}
	return nil
}

// NotePushed records the commit a follow-up pushed, right after the push.
func (s *Store) NotePushed(ctx context.Context, repo string, pr int, sha string) error {
	return s.note(ctx, repo, pr, metaPushed, sha)
}

// Answered marks one item answered (its reply is posted) and takes it out
// of flight, in one step.
func (s *Store) Answered(ctx context.Context, repo string, pr int, it Item) error {
	pipe := s.rdb.TxPipeline()
	pipe.SAdd(ctx, key(repo, pr, "done"), it.Key())
	pipe.Expire(ctx, key(repo, pr, "done"), keep)
	pipe.HDel(ctx, key(repo, pr, "inflight"), it.Key())
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("mark %s of %s#%d answered: %w", it.Key(), repo, pr, err)
	}
	return nil
}

// Finish marks every item answered and ends the in-flight record: the
// follow-up is over (pushed and replied, or ended with its outcome posted).
func (s *Store) Finish(ctx context.Context, repo string, pr int, items []Item) error {
	pipe := s.rdb.TxPipeline()
	if len(items) > 0 {
		keys := make([]any, len(items))
		for i, it := range items {
			keys[i] = it.Key()
		}
		pipe.SAdd(ctx, key(repo, pr, "done"), keys...)
		pipe.Expire(ctx, key(repo, pr, "done"), keep)
	}
	pipe.Del(ctx, key(repo, pr, "inflight"))
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("finish follow-up of %s#%d: %w", repo, pr, err)
	}
	return nil
}

// Requeue puts the in-flight items back to pending (an attempt that will be
// tried again keeps them), with the pending lifetime.
func (s *Store) Requeue(ctx context.Context, repo string, pr int) error {
	if err := requeueScript.Run(ctx, s.rdb, []string{key(repo, pr, "pending"), key(repo, pr, "inflight")}, secs(keep)).Err(); err != nil {
		return fmt.Errorf("requeue feedback of %s#%d: %w", repo, pr, err)
	}
	return nil
}

// Forget drops what a closed PR leaves: feedback, the in-flight record, the
// hold and a skipped evaluation. Answered keys stay (late copies are
// dropped) until they expire.
func (s *Store) Forget(ctx context.Context, repo string, pr int) error {
	err := s.rdb.Del(ctx, key(repo, pr, "pending"), key(repo, pr, "inflight"), key(repo, pr, "hold"), key(repo, pr, "hold-at"),
		key(repo, pr, "skipped"), key(repo, pr, "active"), key(repo, pr, "run"), key(repo, pr, "handback")).Err()
	if err != nil {
		return fmt.Errorf("forget follow-up state of %s#%d: %w", repo, pr, err)
	}
	return nil
}
