package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
)

// lister reads the queue's tasks (asynq.Inspector).
type lister interface {
	ListPendingTasks(queue string, opts ...asynq.ListOption) ([]*asynq.TaskInfo, error)
	ListScheduledTasks(queue string, opts ...asynq.ListOption) ([]*asynq.TaskInfo, error)
	ListRetryTasks(queue string, opts ...asynq.ListOption) ([]*asynq.TaskInfo, error)
	ListActiveTasks(queue string, opts ...asynq.ListOption) ([]*asynq.TaskInfo, error)
}

// Item is one issue on the dashboard and why it is where it is.
type Item struct {
	Issue int
	PR    int // pull requests waiting: the PR
	Why   string
}

// Spend is today's model spend against the operator's caps (0: no cap).
type Spend struct {
	Day                           string // UTC, 2006-01-02
	Repo, RepoCap                 float64
	Installation, InstallationCap float64
}

// SpendFunc reads today's spend of a repository and its installation.
type SpendFunc func(ctx context.Context, repo string, inst int64) (Spend, error)

// State is everything the dashboard shows, each list by issue number.
type State struct {
	Running, Queued, Deferred, Blocked, Escalated, Waiting []Item
	Spend                                                  *Spend
}

// pageSize bounds one listing of the queue.
const pageSize = 200

// gather reads the repository's state from Redis: locks for running
// issues, the queue for queued and deferred ones, the outcome history
// (newest entry per issue) for blocked and escalated issues and the PRs
// waiting, the status memo for why a PR waits, the ledger for spend.
func (b *Board) gather(ctx context.Context, repo string, inst int64) (State, error) {
	var st State
	running, err := b.running(ctx, repo)
	if err != nil {
		return st, err
	}
	seen := map[int]bool{}
	active, err := b.tasks(repo, b.Tasks.ListActiveTasks)
	if err != nil {
		return st, err
	}
	for _, n := range running {
		seen[n] = true
		st.Running = append(st.Running, Item{Issue: n, Why: runningWhy(active[n])})
	}
	if err := b.queued(repo, &st, seen); err != nil {
		return st, err
	}
	if err := b.settled(ctx, repo, &st, seen); err != nil {
		return st, err
	}
	if b.Spend != nil {
		sp, err := b.Spend(ctx, repo, inst)
		if err != nil {
			return st, fmt.Errorf("read spend of %s: %w", repo, err)
		}
		st.Spend = &sp
	}
	return st, nil
}

// running lists the issues whose run lock is held (jobs.Locks).
func (b *Board) running(ctx context.Context, repo string) ([]int, error) {
	prefix := "warden:lock:" + repo + "#"
	var out []int
	iter := b.RDB.Scan(ctx, 0, escapeGlob(prefix)+"*", 500).Iterator()
	for iter.Next(ctx) {
		if n, err := strconv.Atoi(strings.TrimPrefix(iter.Val(), prefix)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("list running issues of %s: %w", repo, err)
	}
	sort.Ints(out)
	return out, nil
}

func escapeGlob(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(s)
}

type listFunc func(queue string, opts ...asynq.ListOption) ([]*asynq.TaskInfo, error)

type queuedTask struct {
	p    jobs.RunPayload
	at   time.Time
	info *asynq.TaskInfo
}

// tasks reads one listing of the default queue: the repository's run
// tasks by issue (the first of an issue's tasks wins).
func (b *Board) tasks(repo string, list listFunc) (map[int]queuedTask, error) {
	out := map[int]queuedTask{}
	for page := 1; ; page++ {
		infos, err := list(jobs.QueueDefault, asynq.PageSize(pageSize), asynq.Page(page))
		if errors.Is(err, asynq.ErrQueueNotFound) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list tasks of %s: %w", repo, err)
		}
		for _, ti := range infos {
			var p jobs.RunPayload
			if ti.Type != jobs.TypeRun || json.Unmarshal(ti.Payload, &p) != nil || p.Repo != repo || p.Issue <= 0 {
				continue
			}
			if _, dup := out[p.Issue]; !dup {
				out[p.Issue] = queuedTask{p: p, at: ti.NextProcessAt, info: ti}
			}
		}
		if len(infos) < pageSize {
			return out, nil
		}
	}
}

// queued fills the queued and deferred lists from the waiting tasks.
func (b *Board) queued(repo string, st *State, seen map[int]bool) error {
	for _, list := range []listFunc{b.Tasks.ListPendingTasks, b.Tasks.ListScheduledTasks, b.Tasks.ListRetryTasks} {
		ts, err := b.tasks(repo, list)
		if err != nil {
			return err
		}
		for _, n := range sortedIssues(ts) {
			if seen[n] {
				continue
			}
			seen[n] = true
			t := ts[n]
			if t.p.Reason == jobs.ReasonDeferred && t.info.State == asynq.TaskStateScheduled {
				st.Deferred = append(st.Deferred, Item{Issue: n, Why: deferredWhy(t)})
				continue
			}
			st.Queued = append(st.Queued, Item{Issue: n, Why: queuedWhy(t.p)})
		}
	}
	sortItems(st.Queued)
	sortItems(st.Deferred)
	return nil
}

func sortedIssues(m map[int]queuedTask) []int {
	out := make([]int, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func sortItems(items []Item) {
	sort.Slice(items, func(i, j int) bool { return items[i].Issue < items[j].Issue })
}

// settled fills blocked, escalated and waiting PRs from each issue's newest
// outcome, leaving out issues closed since.
func (b *Board) settled(ctx context.Context, repo string, st *State, seen map[int]bool) error {
	raw, err := b.History.List(ctx, repo, jobs.HistoryLimit)
	if err != nil {
		return err
	}
	closed, err := b.RDB.HGetAll(ctx, closedKey(repo)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read closed issues of %s: %w", repo, err)
	}
	for _, s := range raw { // newest first
		var e jobs.Entry
		if json.Unmarshal([]byte(s), &e) != nil || e.Issue <= 0 || seen[e.Issue] {
			continue
		}
		seen[e.Issue] = true
		if at, _ := strconv.ParseInt(closed[strconv.Itoa(e.Issue)], 10, 64); at > 0 && e.Time.UnixMilli() <= at {
			continue
		}
		b.place(ctx, repo, st, e)
	}
	sortItems(st.Blocked)
	sortItems(st.Escalated)
	sortItems(st.Waiting)
	return nil
}

// place puts an issue where its newest outcome says it is.
func (b *Board) place(ctx context.Context, repo string, st *State, e jobs.Entry) {
	rec := e.Record
	switch {
	case rec.Outcome == outcome.Blocked:
		st.Blocked = append(st.Blocked, Item{Issue: e.Issue, Why: blockedWhy(rec)})
	case rec.Outcome == outcome.Escalated && rec.FailureClass != outcome.Canceled:
		st.Escalated = append(st.Escalated, Item{Issue: e.Issue, Why: escalatedWhy(rec)})
	case rec.Outcome == outcome.Completed && rec.PR > 0:
		st.Waiting = append(st.Waiting, Item{Issue: e.Issue, PR: rec.PR, Why: b.waitingWhy(ctx, repo, e.Issue, rec)})
	}
}
