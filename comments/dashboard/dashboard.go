// Package dashboard keeps one issue per repository, titled "Warden
// dashboard", that lists what Warden is doing there: running, queued,
// deferred, blocked and escalated issues, the pull requests waiting, each
// with why, and today's spend against the caps (CONTRACT §13). It is
// rendered from what Warden already keeps in Redis and edited in place,
// debounced, only when its text changes. A writer ticking an issue's box
// retries that issue; anyone else's edit is written over.
package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/jobs"
)

// Title is the dashboard issue's title; Marker opens its body.
const (
	Title  = "Warden dashboard"
	Marker = "<!-- warden:dashboard -->"
)

// App is the GitHub App as the dashboard uses it (githubapp.App).
type App interface {
	Client(installation int64) *github.Client
	BotLogin(ctx context.Context) (string, error)
}

// queue is what the dashboard queues (jobs.Queue).
type queue interface {
	EnqueueDashboard(ctx context.Context, p jobs.DashboardPayload) error
	EnqueueRun(ctx context.Context, p jobs.RunPayload, opts ...asynq.Option) (jobs.EnqueueResult, error)
	EnqueueStatus(ctx context.Context, p jobs.StatusPayload) error
}

// Board keeps the dashboards of every repository that turned one on.
type Board struct {
	RDB     redis.UniversalClient
	App     App
	Queue   queue
	Tasks   lister // the queue's tasks (asynq.Inspector)
	History *jobs.History
	Memo    *jobs.StatusMemo
	Locks   *jobs.Locks
	Spend   SpendFunc // nil: spend is not shown
	Prefix  string    // label and command prefix
	Log     *slog.Logger
}

func onKey(repo string) string     { return "warden:dashboard:on:" + repo }
func closedKey(repo string) string { return "warden:dashboard:closed:" + repo }

// Configured is told what a repository's .github/warden.yml says each time
// a run reads it: the dashboard is kept only while it says `dashboard:
// true`. Turning it on refreshes the dashboard at once. Nothing else
// turns it on, so a repository without it costs no GitHub call.
func (b *Board) Configured(ctx context.Context, repo string, inst int64, on bool) {
	if !on {
		if err := b.RDB.Del(ctx, onKey(repo)).Err(); err != nil {
			b.Log.Warn("dashboard flag not cleared", "repo", repo, "err", err)
		}
		return
	}
	was, err := b.RDB.GetSet(ctx, onKey(repo), inst).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		b.Log.Warn("dashboard flag not set", "repo", repo, "err", err)
		return
	}
	if was == "" {
		b.Touch(ctx, repo, inst)
	}
}

// enabled reports whether the repository keeps a dashboard.
func (b *Board) enabled(ctx context.Context, repo string) (bool, error) {
	n, err := b.RDB.Exists(ctx, onKey(repo)).Result()
	if err != nil {
		return false, fmt.Errorf("read dashboard flag of %s: %w", repo, err)
	}
	return n > 0, nil
}

// Touch asks for a refresh of the repository's dashboard after a state
// change: one Redis read when it has none, a debounced task when it has.
func (b *Board) Touch(ctx context.Context, repo string, inst int64) {
	if repo == "" {
		return
	}
	if on, err := b.enabled(ctx, repo); err != nil || !on {
		return
	}
	if err := b.Queue.EnqueueDashboard(ctx, jobs.DashboardPayload{Repo: repo, Installation: inst}); err != nil {
		b.Log.Warn("dashboard refresh not queued", "repo", repo, "err", err)
	}
}

// closedFor is how long a closed issue is remembered: long enough to keep
// its last outcome off the dashboard while the history still holds it.
const closedFor = 90 * 24 * time.Hour

// Middleware touches the dashboard around every task that changes an
// issue's state: a run when it starts and ends, a status update, a PR
// evaluation, an issue closed (which it also remembers, so the closed
// issue's last outcome leaves the dashboard).
func (b *Board) Middleware(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		if t.Type() == jobs.TypeDashboard {
			return next.ProcessTask(ctx, t)
		}
		var p struct {
			Repo         string `json:"repo"`
			Installation int64  `json:"installation"`
			Issue        int    `json:"issue"`
		}
		_ = json.Unmarshal(t.Payload(), &p) // a payload without them touches nothing
		if t.Type() == jobs.TypeRun {
			b.Touch(ctx, p.Repo, p.Installation)
		}
		err := next.ProcessTask(ctx, t)
		ctx = context.WithoutCancel(ctx)
		if t.Type() == jobs.TypeIssueClosed && err == nil && p.Issue > 0 {
			b.RDB.HSet(ctx, closedKey(p.Repo), strconv.Itoa(p.Issue), time.Now().UnixMilli())
			b.RDB.Expire(ctx, closedKey(p.Repo), closedFor)
		}
		b.Touch(ctx, p.Repo, p.Installation)
		return err
	})
}
