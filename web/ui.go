package web

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// Status is what the operator page at /ui shows.
type Status struct {
	Version       string
	Queues        []QueueStatus
	Tasks         []TaskStatus // recent tasks, by state
	Interventions []TaskStatus // tasks whose supervisor gave up (NEEDS_INTERVENTION)
	Problems      []string     // parts that could not be read
	Warnings      []string     // start-up findings that did not stop the process
	Isolation     string       // how repository commands are isolated (sandbox.Describe)
	Spend         []SpendLine  // model spend today per repository and installation
	Generated     time.Time
}

// QueueStatus is one asynq queue.
type QueueStatus struct {
	Name                                              string
	Size, Pending, Active, Scheduled, Retry, Archived int
	Completed, ProcessedToday, FailedToday            int
	Latency                                           time.Duration
	Paused                                            bool
}

// TaskStatus is one task; Title and Error come from issues and tools, so the
// page escapes them like any hostile text.
type TaskStatus struct {
	ID, Queue, State, Type string
	Repo                   string
	Issue                  int
	Mode, Title, Error     string
	Retried                int
}

// SpendLine is today's model spend of one repository or installation.
type SpendLine struct {
	Scope    string
	USD, Cap float64
}

// statusPage renders /ui from the status source.
func statusPage(source func(context.Context) (*Status, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
		defer cancel()
		st, err := source(ctx)
		if err != nil {
			st = &Status{Problems: []string{"status unavailable: " + err.Error()}, Generated: time.Now()}
		}
		var page bytes.Buffer
		if err := statusTemplate.Execute(&page, st); err != nil {
			return err
		}
		h := c.Response().Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		return c.HTMLBlob(http.StatusOK, page.Bytes())
	}
}

var statusTemplate = template.Must(template.New("ui").Funcs(template.FuncMap{
	"hasPrefix": strings.HasPrefix,
	"short": func(s string) string {
		if r := []rune(s); len(r) > 160 {
			return string(r[:160]) + "…"
		}
		return s
	},
}).Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="10"><title>Warden</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem}table{border-collapse:collapse;margin-bottom:1.5rem}
th,td{border-bottom:1px solid #ddd;padding:.25rem .6rem;text-align:left;vertical-align:top}th{background:#f5f5f5}
.paused{color:#b00;font-weight:bold}.problem{color:#b00}</style></head><body>
<h1>Warden {{.Version}}</h1>
{{range .Problems}}<p class="problem">{{.}}</p>{{end}}
{{range .Warnings}}<p class="problem warning">Warning: {{.}}</p>{{end}}
{{with .Isolation}}<p id="isolation"{{if not (hasPrefix . "bubblewrap")}} class="problem"{{end}}>Isolation of repository commands: {{.}}</p>{{end}}
<h2>Queues</h2>
<table id="queues"><tr><th>queue</th><th>state</th><th>size</th><th>pending</th><th>active</th><th>scheduled</th><th>retry</th><th>archived</th><th>completed</th><th>processed today</th><th>failed today</th><th>latency</th></tr>
{{range .Queues}}<tr><td>{{.Name}}</td><td>{{if .Paused}}<span class="paused">paused</span>{{else}}running{{end}}</td><td>{{.Size}}</td><td>{{.Pending}}</td><td>{{.Active}}</td><td>{{.Scheduled}}</td><td>{{.Retry}}</td><td>{{.Archived}}</td><td>{{.Completed}}</td><td>{{.ProcessedToday}}</td><td>{{.FailedToday}}</td><td>{{.Latency}}</td></tr>
{{else}}<tr><td colspan="12">no queues yet</td></tr>{{end}}</table>
<h2>Model spend today (UTC)</h2>
<table id="spend"><tr><th>scope</th><th>spent</th><th>daily cap</th></tr>
{{range .Spend}}<tr><td>{{.Scope}}</td><td>${{printf "%.4f" .USD}}</td><td>{{if .Cap}}${{printf "%.2f" .Cap}}{{else}}none{{end}}</td></tr>
{{else}}<tr><td colspan="3">none</td></tr>{{end}}</table>
<h2>Needs intervention</h2>
<table id="interventions"><tr><th>issue</th><th>mode</th><th>reason</th></tr>
{{range .Interventions}}<tr><td>{{.Repo}}#{{.Issue}}</td><td>{{.Mode}}</td><td>{{short .Error}}</td></tr>
{{else}}<tr><td colspan="3">none</td></tr>{{end}}</table>
<h2>Recent tasks</h2>
<table id="tasks"><tr><th>state</th><th>issue</th><th>title</th><th>mode</th><th>retried</th><th>last error</th><th>task</th></tr>
{{range .Tasks}}<tr><td>{{.State}}</td><td>{{.Repo}}#{{.Issue}}</td><td>{{short .Title}}</td><td>{{.Mode}}</td><td>{{.Retried}}</td><td>{{short .Error}}</td><td>{{.Queue}}/{{.ID}}</td></tr>
{{else}}<tr><td colspan="7">none</td></tr>{{end}}</table>
<p>Generated {{.Generated.UTC.Format "2006-01-02 15:04:05 MST"}}. JSON: <a href="/api/tasks">/api/tasks</a>, <a href="/api/tasks?state=needs_intervention">needs intervention</a>.</p>
</body></html>`))
