package jobs

import (
	"context"
	"encoding/json"

	"github.com/redis/go-redis/v9"
)

// StatusMemo keeps the status comment Warden last wrote on each issue, its
// id and body, in Redis for every process (comments.StatusMemo). A memo
// that cannot be written is deleted, so it never outlives a newer write:
// the next note lists the issue's comments instead.
type StatusMemo struct{ rdb redis.UniversalClient }

// NewStatusMemo keeps the memos in Redis.
func NewStatusMemo(rdb redis.UniversalClient) *StatusMemo { return &StatusMemo{rdb: rdb} }

type memo struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
}

func statusMemoKey(repo string, issue int) string {
	return keyPrefix + "status-memo:" + IssueKey(repo, issue)
}

// Last answers the status comment last written on the issue.
func (s *StatusMemo) Last(ctx context.Context, repo string, issue int) (int64, string, bool) {
	b, err := s.rdb.Get(ctx, statusMemoKey(repo, issue)).Bytes()
	if err != nil {
		return 0, "", false
	}
	var m memo
	if json.Unmarshal(b, &m) != nil || m.ID <= 0 {
		return 0, "", false
	}
	return m.ID, m.Body, true
}

// Wrote remembers a status comment GitHub accepted.
func (s *StatusMemo) Wrote(ctx context.Context, repo string, issue int, id int64, body string) {
	b, _ := json.Marshal(memo{ID: id, Body: body})
	if s.rdb.Set(context.WithoutCancel(ctx), statusMemoKey(repo, issue), b, statusIDTTL).Err() != nil {
		s.Forget(ctx, repo, issue)
	}
}

// Forget drops the issue's memo.
func (s *StatusMemo) Forget(ctx context.Context, repo string, issue int) {
	s.rdb.Del(context.WithoutCancel(ctx), statusMemoKey(repo, issue))
}
