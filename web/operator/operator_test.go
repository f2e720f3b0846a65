package operator

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/web"
)

// The /ui page as serve wires it: a queued task with a hostile title and a
// task in NEEDS_INTERVENTION, read from (embedded) Redis through asynq's
// inspector, behind WARDEN_UI_PASSWORD.
func TestStatusPageWiring(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	backend, err := jobs.Open("", log) // embedded Redis
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	queue := jobs.NewQueue(backend)
	defer queue.Close()
	api := &API{Queue: queue, RDB: backend.RDB, Version: "test"}
	echoFor := func(password string) http.Handler {
		return web.New(web.Options{Redis: backend, Registry: prometheus.NewRegistry(), UIPassword: password, Log: log, Operator: api.Routes, Status: api.Status})
	}
	ctx := context.Background()
	if _, err := queue.EnqueueRun(ctx, jobs.RunPayload{Repo: "acme/app", Issue: 7, Mode: "maintenance", Title: `<script>alert("x")</script>`}); err != nil {
		t.Fatal(err)
	}
	if err := jobs.NewInterventions(backend.RDB).Mark(ctx, jobs.Intervention{Repo: "acme/app", Issue: 9, Mode: "evolution", Reason: "restart intensity exceeded"}); err != nil {
		t.Fatal(err)
	}
	get := func(e http.Handler, pass string) (int, string) {
		req := httptest.NewRequest(http.MethodGet, "/ui/", nil)
		if pass != "" {
			req.SetBasicAuth("operator", pass)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	e := echoFor("ui-pass-0123")
	if code, _ := get(e, ""); code != http.StatusUnauthorized {
		t.Fatalf("without the password: %d", code)
	}
	code, body := get(e, "ui-pass-0123")
	for _, want := range []string{"<td>default</td>", "pending", "acme/app#7", "&lt;script&gt;", "acme/app#9", "restart intensity exceeded"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if code != 200 || strings.Contains(body, "<script>") {
		t.Fatalf("%d\n%s", code, body)
	}
	if code, _ := get(echoFor(""), "ui-pass-0123"); code != http.StatusNotFound {
		t.Fatalf("with WARDEN_UI_PASSWORD unset: %d", code)
	}
}
