package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Links remembers which issues wait on which: an issue blocked on another,
// and the sub-issues of a decomposed parent.
type Links struct{ rdb redis.UniversalClient }

// NewLinks wraps a Redis client.
func NewLinks(rdb redis.UniversalClient) *Links { return &Links{rdb: rdb} }

func blockedKey(repo string, blocker int) string {
	return keyPrefix + "blocked-on:" + IssueKey(repo, blocker)
}
func childrenKey(repo string, parent int) string {
	return keyPrefix + "children:" + IssueKey(repo, parent)
}
func parentKey(repo string, child int) string { return keyPrefix + "parent:" + IssueKey(repo, child) }

// BlockOn records that issue blocked waits for blocker to close.
func (l *Links) BlockOn(ctx context.Context, repo string, blocker, blocked int) error {
	if err := l.rdb.SAdd(ctx, blockedKey(repo, blocker), blocked).Err(); err != nil {
		return fmt.Errorf("record %s blocked on #%d: %w", IssueKey(repo, blocked), blocker, err)
	}
	return nil
}

// Unblock returns the issues that wait for blocker. They stay recorded
// until each is requeued (Unblocked): a failure halfway through strands
// none of them, the retried task requeues the rest.
func (l *Links) Unblock(ctx context.Context, repo string, blocker int) ([]int, error) {
	ids, err := l.rdb.SMembers(ctx, blockedKey(repo, blocker)).Result()
	if err != nil {
		return nil, fmt.Errorf("read issues blocked on %s: %w", IssueKey(repo, blocker), err)
	}
	return atoi(ids), nil
}

// Unblocked forgets that blocked waited for blocker, once it is requeued.
func (l *Links) Unblocked(ctx context.Context, repo string, blocker, blocked int) error {
	if err := l.rdb.SRem(ctx, blockedKey(repo, blocker), blocked).Err(); err != nil {
		return fmt.Errorf("forget %s blocked on #%d: %w", IssueKey(repo, blocked), blocker, err)
	}
	return nil
}

// AddChild records a sub-issue of parent.
func (l *Links) AddChild(ctx context.Context, repo string, parent, child int) error {
	pipe := l.rdb.TxPipeline()
	pipe.SAdd(ctx, childrenKey(repo, parent), child)
	pipe.Set(ctx, parentKey(repo, child), parent, 0)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("record sub-issue #%d of %s: %w", child, IssueKey(repo, parent), err)
	}
	return nil
}

// Parent returns the parent of a sub-issue, or 0.
func (l *Links) Parent(ctx context.Context, repo string, child int) (int, error) {
	n, err := l.rdb.Get(ctx, parentKey(repo, child)).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// Children returns the sub-issues of parent.
func (l *Links) Children(ctx context.Context, repo string, parent int) ([]int, error) {
	ids, err := l.rdb.SMembers(ctx, childrenKey(repo, parent)).Result()
	return atoi(ids), err
}

// TreeSize counts the tasks in the decomposition tree that parent belongs to,
// walking up to the root and down through every child.
func (l *Links) TreeSize(ctx context.Context, repo string, issue int) (int, error) {
	root := issue
	for range 10 {
		p, err := l.Parent(ctx, repo, root)
		if err != nil {
			return 0, err
		}
		if p == 0 {
			break
		}
		root = p
	}
	n, queue := 0, []int{root}
	for len(queue) > 0 && n < 1000 {
		cur := queue[0]
		queue = queue[1:]
		n++
		kids, err := l.Children(ctx, repo, cur)
		if err != nil {
			return 0, err
		}
		queue = append(queue, kids...)
	}
	return n, nil
}

func atoi(ss []string) []int {
	out := make([]int, 0, len(ss))
	for _, s := range ss {
		if n, err := strconv.Atoi(s); err == nil {
			out = append(out, n)
		}
	}
	return out
}
