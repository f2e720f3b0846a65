// Package operator serves what an operator reads: the task lists and
// outcome history under /api, and the data of the /ui status page.
package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/warden-bot/warden/agent/meter"
	"net/http"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/web"
)

// API reads the queue and Redis for the operator views.
type API struct {
	Queue   *jobs.Queue
	RDB     redis.UniversalClient
	Version string        // shown on /ui
	Ledger  *meter.Ledger // today's model spend, shown on /ui
	// Warnings are this process's start-up findings that did not stop it
	// (a newer agent CLI than the pinned one), shown on /ui.
	Warnings []string
	// DefaultImage is WARDEN_DEFAULT_IMAGE; /ui warns when it is unset and
	// the worker has no toolchain either.
	DefaultImage string
}

// Routes mounts the operator API (behind basic auth, see web.New);
// Status feeds the /ui page.
func (a *API) Routes(g *echo.Group) {
	g.GET("/tasks", a.apiTasks)
	g.GET("/history", a.apiHistory)
}

type taskView struct {
	ID    string `json:"id"`
	Queue string `json:"queue"`
	State string `json:"state"`
	Type  string `json:"type"`
	Retry int    `json:"retried"`
	Error string `json:"last_error,omitempty"`
	jobs.RunPayload
}

// apiTasks lists tasks by state
// (?state=active|pending|scheduled|retry|archived|needs_intervention).
func (a *API) apiTasks(c echo.Context) error {
	ins := a.Queue.Inspector()
	state := c.QueryParam("state")
	if state == "needs_intervention" {
		return a.apiInterventions(c)
	}
	states := taskStates
	if state != "" {
		states = []string{state}
	}
	out, err := listTasks(ins, states, 100)
	if err != nil {
		return c.JSON(http.StatusBadRequest, map[string]string{"status": "error", "reason": err.Error()})
	}
	return c.JSON(http.StatusOK, out)
}

// taskStates are the asynq states the operator views list, in this order.
var taskStates = []string{"active", "pending", "scheduled", "retry", "archived"}

// listTasks lists the default queue's tasks in these states, up to pageSize
// each; a state that cannot be read is skipped.
func listTasks(ins *asynq.Inspector, states []string, pageSize int) ([]taskView, error) {
	list := map[string]func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){
		"active": ins.ListActiveTasks, "pending": ins.ListPendingTasks, "scheduled": ins.ListScheduledTasks,
		"retry": ins.ListRetryTasks, "archived": ins.ListArchivedTasks,
	}
	out := []taskView{}
	for _, st := range states {
		fn, ok := list[st]
		if !ok {
			return nil, fmt.Errorf("unknown state %s", st)
		}
		infos, err := fn(jobs.QueueDefault, asynq.PageSize(pageSize))
		if err != nil {
			continue
		}
		for _, ti := range infos {
			v := taskView{ID: ti.ID, Queue: ti.Queue, State: st, Type: ti.Type, Retry: ti.Retried, Error: ti.LastErr}
			_ = json.Unmarshal(ti.Payload, &v.RunPayload)
			out = append(out, v)
		}
	}
	return out, nil
}

// apiHistory exports a repository's outcome history as JSON lines, newest first.
func (a *API) apiHistory(c echo.Context) error {
	repo := c.QueryParam("repo")
	if repo == "" || !strings.Contains(repo, "/") {
		return c.JSON(http.StatusBadRequest, map[string]string{"status": "error", "reason": "?repo=owner/name is required"})
	}
	lines, err := jobs.NewHistory(a.RDB).List(c.Request().Context(), repo, jobs.HistoryLimit)
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	c.Response().Header().Set(echo.HeaderContentType, "application/x-ndjson")
	c.Response().WriteHeader(http.StatusOK)
	for _, l := range lines {
		fmt.Fprintln(c.Response(), l)
	}
	return nil
}

// apiInterventions lists the tasks whose supervisor gave up and that wait
// for a maintainer's reset.
func (a *API) apiInterventions(c echo.Context) error {
	out, err := a.interventions(c.Request().Context())
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	return c.JSON(http.StatusOK, out)
}

func (a *API) interventions(ctx context.Context) ([]taskView, error) {
	list, err := jobs.NewInterventions(a.RDB).List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]taskView, 0, len(list))
	for _, v := range list {
		out = append(out, taskView{ID: jobs.RunTaskID(v.Repo, v.Issue), Queue: jobs.QueueDefault, State: "needs_intervention", Type: jobs.TypeRun,
			Error: v.Reason, RunPayload: jobs.RunPayload{Repo: v.Repo, Issue: v.Issue, Installation: v.Installation, Mode: v.Mode}})
	}
	return out, nil
}

// Status is what the /ui page shows: the queues, recent tasks and the
// tasks waiting for a maintainer, from the same sources as /api/tasks.
func (a *API) Status(ctx context.Context) (*web.Status, error) {
	ins := a.Queue.Inspector()
	st := &web.Status{Version: a.Version, Generated: time.Now(), Isolation: workspace.Isolation(), Warnings: a.Warnings}
	if p := workspace.NoToolchainProblem(a.DefaultImage); p != "" {
		st.Problems = append(st.Problems, p)
	}
	names, err := ins.Queues()
	if err != nil {
		return nil, fmt.Errorf("list queues: %w", err)
	}
	for _, q := range names {
		qi, err := ins.GetQueueInfo(q)
		if err != nil {
			st.Problems = append(st.Problems, fmt.Sprintf("queue %s: %v", q, err))
			continue
		}
		st.Queues = append(st.Queues, web.QueueStatus{Name: q, Size: qi.Size, Pending: qi.Pending, Active: qi.Active,
			Scheduled: qi.Scheduled, Retry: qi.Retry, Archived: qi.Archived, Completed: qi.Completed,
			ProcessedToday: qi.Processed, FailedToday: qi.Failed, Latency: qi.Latency.Round(time.Second), Paused: qi.Paused})
	}
	if a.Ledger != nil {
		days, err := a.Ledger.Today(ctx)
		if err != nil {
			st.Problems = append(st.Problems, err.Error())
		}
		for _, d := range days {
			st.Spend = append(st.Spend, web.SpendLine{Scope: d.Scope, USD: d.USD, Cap: d.Cap})
		}
	}
	tasks, _ := listTasks(ins, taskStates, 20)
	st.Tasks = taskStatuses(tasks)
	if iv, err := a.interventions(ctx); err != nil {
		st.Problems = append(st.Problems, "needs intervention: "+err.Error())
	} else {
		st.Interventions = taskStatuses(iv)
	}
	return st, nil
}

func taskStatuses(views []taskView) []web.TaskStatus {
	out := make([]web.TaskStatus, 0, len(views))
	for _, v := range views {
		out = append(out, web.TaskStatus{ID: v.ID, Queue: v.Queue, State: v.State, Type: v.Type, Repo: v.Repo, Issue: v.Issue,
			Mode: v.Mode, Title: v.Title, Error: v.Error, Retried: v.Retry})
	}
	return out
}
