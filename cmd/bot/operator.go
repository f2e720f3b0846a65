package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/hibiken/asynq"
	"github.com/labstack/echo/v4"
	"github.com/warden-bot/warden/jobs"
)

// operatorRoutes mounts the operator API (behind basic auth, see web.New).
func (a *app) operatorRoutes(g *echo.Group) {
	g.GET("/api/tasks", a.apiTasks)
	g.GET("/api/history", a.apiHistory)
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
func (a *app) apiTasks(c echo.Context) error {
	ins := a.queue.Inspector()
	state := c.QueryParam("state")
	if state == "needs_intervention" {
		return a.apiInterventions(c)
	}
	list := map[string]func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){
		"active": ins.ListActiveTasks, "pending": ins.ListPendingTasks, "scheduled": ins.ListScheduledTasks,
		"retry": ins.ListRetryTasks, "archived": ins.ListArchivedTasks,
	}
	states := []string{state}
	if state == "" {
		states = []string{"active", "pending", "scheduled", "retry", "archived"}
	}
	out := []taskView{}
	for _, st := range states {
		fn, ok := list[st]
		if !ok {
			return c.JSON(http.StatusBadRequest, map[string]string{"status": "error", "reason": "unknown state " + st})
		}
		infos, err := fn(jobs.QueueDefault, asynq.PageSize(100))
		if err != nil {
			continue
		}
		for _, ti := range infos {
			v := taskView{ID: ti.ID, Queue: ti.Queue, State: st, Type: ti.Type, Retry: ti.Retried, Error: ti.LastErr}
			_ = json.Unmarshal(ti.Payload, &v.RunPayload)
			out = append(out, v)
		}
	}
	return c.JSON(http.StatusOK, out)
}

// apiHistory exports a repository's outcome history as JSON lines, newest first.
func (a *app) apiHistory(c echo.Context) error {
	repo := c.QueryParam("repo")
	if repo == "" || !strings.Contains(repo, "/") {
		return c.JSON(http.StatusBadRequest, map[string]string{"status": "error", "reason": "?repo=owner/name is required"})
	}
	lines, err := jobs.NewHistory(a.backend.RDB).List(c.Request().Context(), repo, jobs.HistoryLimit)
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
func (a *app) apiInterventions(c echo.Context) error {
	list, err := jobs.NewInterventions(a.backend.RDB).List(c.Request().Context())
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	out := make([]taskView, 0, len(list))
	for _, v := range list {
		out = append(out, taskView{ID: jobs.RunTaskID(v.Repo, v.Issue), Queue: jobs.QueueDefault, State: "needs_intervention", Type: jobs.TypeRun,
			Error: v.Reason, RunPayload: jobs.RunPayload{Repo: v.Repo, Issue: v.Issue, Installation: v.Installation, Mode: v.Mode}})
	}
	return c.JSON(http.StatusOK, out)
}
