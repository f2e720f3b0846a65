package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

type okPinger struct{}

func (okPinger) Ping(context.Context) error { return nil }

const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)>`

func fixedStatus(context.Context) (*Status, error) {
	return &Status{
		Version: "v-test",
		Queues:  []QueueStatus{{Name: "default", Size: 3, Pending: 1, Active: 2, Paused: true}},
		Tasks: []TaskStatus{{ID: "run:acme/app#7", Queue: "default", State: "active", Type: "warden:run",
			Repo: "acme/app", Issue: 7, Mode: "maintenance", Title: hostile, Error: "exit 1: " + hostile}},
		Interventions: []TaskStatus{{Repo: "acme/app", Issue: 9, Mode: "evolution", Error: "restart intensity exceeded"}},
	}, nil
}

func serveUI(t *testing.T, password string, source func(context.Context) (*Status, error), user, pass string) (*http.Response, string) {
	t.Helper()
	e := New(Options{Redis: okPinger{}, Registry: prometheus.NewRegistry(), UIPassword: password,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Status: source})
	req := httptest.NewRequest(http.MethodGet, "/ui", nil)
	if user != "" || pass != "" {
		req.SetBasicAuth(user, pass)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec.Result(), rec.Body.String()
}

func TestUIIsOffWithoutPassword(t *testing.T) {
	if resp, _ := serveUI(t, "", fixedStatus, "op", "anything"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("/ui without WARDEN_UI_PASSWORD: %d", resp.StatusCode)
	}
}

func TestUINeedsThePassword(t *testing.T) {
	for _, creds := range [][2]string{{"", ""}, {"op", "wrong"}, {"op", "s3cret-ui-passwordX"}} {
		resp, _ := serveUI(t, "s3cret-ui-password", fixedStatus, creds[0], creds[1])
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("credentials %q: %d", creds, resp.StatusCode)
		}
	}
}

func TestUIRendersStatusEscaped(t *testing.T) {
	resp, body := serveUI(t, "s3cret-ui-password", fixedStatus, "op", "s3cret-ui-password")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{"Warden v-test", "<td>default</td>", `class="paused"`, "acme/app#7", "acme/app#9",
		"restart intensity exceeded", "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "<img src=x") {
		t.Fatalf("issue text reached the page unescaped:\n%s", body)
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatal("no Content-Security-Policy")
	}
}

func TestUIShowsWhatItCannotRead(t *testing.T) {
	failing := func(context.Context) (*Status, error) { return nil, errors.New("redis: connection refused") }
	resp, body := serveUI(t, "pw", failing, "op", "pw")
	if resp.StatusCode != 200 || !strings.Contains(body, "status unavailable: redis: connection refused") {
		t.Fatalf("%d\n%s", resp.StatusCode, body)
	}
}

// The password guards /ui and /api only: other unknown paths stay 404, and
// the probes need no credentials.
func TestAuthCoversOnlyOperatorRoutes(t *testing.T) {
	e := New(Options{Redis: okPinger{}, Registry: prometheus.NewRegistry(), UIPassword: "pw",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Status: fixedStatus,
		Operator: func(g *echo.Group) { g.GET("/tasks", func(c echo.Context) error { return c.String(200, "[]") }) }})
	for path, want := range map[string]int{"/nowhere": 404, "/healthz": 200, "/readyz": 200, "/api/tasks": 401, "/api/other": 401, "/ui": 401} {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != want {
			t.Errorf("GET %s without credentials: %d, want %d", path, rec.Code, want)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "/api/tasks", nil)
	req.SetBasicAuth("op", "pw")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Body.String() != "[]" {
		t.Errorf("GET /api/tasks with the password: %d %q", rec.Code, rec.Body)
	}
}

// The operator sees how repository commands are isolated, and an opt-out
// stands out.
func TestUIShowsIsolation(t *testing.T) {
	unsafe := func(context.Context) (*Status, error) {
		return &Status{Isolation: "NONE: WARDEN_UNSAFE_NO_SANDBOX=1 runs repository commands without isolation"}, nil
	}
	_, body := serveUI(t, "pw", unsafe, "op", "pw")
	if !strings.Contains(body, `<p id="isolation" class="problem">Isolation of repository commands: NONE: WARDEN_UNSAFE_NO_SANDBOX=1`) {
		t.Fatalf("page:\n%s", body)
	}
}

// A start-up warning (a newer agent CLI than the pinned one) is on the page.
func TestUIShowsWarnings(t *testing.T) {
	warned := func(context.Context) (*Status, error) {
		return &Status{Warnings: []string{"WARDEN_AGENT=codex is tested with codex 0.169.0; /usr/bin/codex is newer"}}, nil
	}
	_, body := serveUI(t, "pw", warned, "op", "pw")
	if !strings.Contains(body, `<p class="problem warning">Warning: WARDEN_AGENT=codex is tested with codex 0.169.0; /usr/bin/codex is newer</p>`) {
		t.Fatalf("page:\n%s", body)
	}
}
