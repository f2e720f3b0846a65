// Package steer keeps what writers tell a run of an issue while it works or
// waits: guidance (`/warden steer <text>`), drained by the pipeline at each
// step, and a plan awaiting a writer's `/warden approve`. Both live in
// Redis, so a restart of the bot loses neither.
package steer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Note is one piece of a writer's guidance.
type Note struct {
	Author string `json:"author"`
	Text   string `json:"text"`
	At     int64  `json:"at,omitempty"` // unix seconds it was given
}

// MaxNotes bounds the guidance an issue may hold undrained: a writer's
// flood cannot grow a prompt or Redis without end.
const MaxNotes = 20

// keep is how long undrained guidance and an unanswered plan are kept.
const keep = 30 * 24 * time.Hour

// ErrFull is returned by Add when the issue already holds MaxNotes notes.
var ErrFull = errors.New("too much guidance is waiting for this issue")

// Store keeps guidance and plans awaiting approval per issue.
type Store struct{ rdb redis.UniversalClient }

// NewStore wraps a Redis client.
func NewStore(rdb redis.UniversalClient) *Store { return &Store{rdb: rdb} }

func key(repo string, issue int, what string) string {
	return fmt.Sprintf("warden:steer:%s#%d:%s", repo, issue, what)
}

// addScript appends a note unless MaxNotes are waiting already.
var addScript = redis.NewScript(`
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`)

// Add keeps a note for the issue's run; ErrFull when too many wait.
func (s *Store) Add(ctx context.Context, repo string, issue int, n Note) error {
	if n.At == 0 {
		n.At = time.Now().Unix()
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encode guidance for %s#%d: %w", repo, issue, err)
	}
	ok, err := addScript.Run(ctx, s.rdb, []string{key(repo, issue, "guidance")}, b, MaxNotes, int(keep.Seconds())).Int()
	if err != nil {
		return fmt.Errorf("keep guidance for %s#%d: %w", repo, issue, err)
	}
	if ok == 0 {
		return ErrFull
	}
	return nil
}

// Drain takes every waiting note, oldest first, in one transaction: a note
// is handed to exactly one reader.
func (s *Store) Drain(ctx context.Context, repo string, issue int) ([]Note, error) {
	k := key(repo, issue, "guidance")
	var got *redis.StringSliceCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		got = p.LRange(ctx, k, 0, -1)
		p.Del(ctx, k)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("drain guidance of %s#%d: %w", repo, issue, err)
	}
	notes := make([]Note, 0, len(got.Val()))
	for _, raw := range got.Val() {
		var n Note
		if json.Unmarshal([]byte(raw), &n) == nil && n.Text != "" {
			notes = append(notes, n)
		}
	}
	return notes, nil
}
