package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/labstack/echo/v4"
	"github.com/warden-bot/warden/jobs"
)

const testSecret = "test-secret"

// fixture reads a real GitHub payload from the repo's copy of the shared fixtures.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	for _, dir := range []string{"../test/fixtures/webhooks", "../../shared/fixtures/webhooks"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			return b
		}
	}
	t.Fatalf("fixture %s not found under test/fixtures/webhooks", name)
	return nil
}

// withInstallation injects what a real App delivery carries and the docs' examples lack.
func withInstallation(t testing.TB, body []byte, mutate func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	m["installation"] = map[string]any{"id": 42, "node_id": "MDIz"}
	if mutate != nil {
		mutate(m)
	}
	b, _ := json.Marshal(m)
	return b
}

type fakeQueue struct {
	mu       sync.Mutex
	runs     []jobs.RunPayload
	statuses []jobs.StatusPayload
	cancels  []string
	fail     error
	already  bool
	cancel   jobs.CancelResult
	resumed  []int64
	prs      []jobs.PRPayload
	closed   []jobs.ClosedPayload
}

func (q *fakeQueue) EnqueueRun(_ context.Context, p jobs.RunPayload, _ ...asynq.Option) (jobs.EnqueueResult, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail != nil {
		return 0, q.fail
	}
	if q.already {
		return jobs.AlreadyQueued, nil
	}
	q.runs = append(q.runs, p)
	return jobs.Queued, nil
}

func (q *fakeQueue) EnqueueStatus(_ context.Context, p jobs.StatusPayload) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail != nil {
		return q.fail
	}
	q.statuses = append(q.statuses, p)
	return nil
}

func (q *fakeQueue) Cancel(_ context.Context, repo string, issue int) (jobs.CancelResult, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.cancels = append(q.cancels, fmt.Sprintf("%s#%d", repo, issue))
	return q.cancel, q.fail
}

func (q *fakeQueue) EnqueuePR(_ context.Context, p jobs.PRPayload) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.prs = append(q.prs, p)
	return q.fail
}

func (q *fakeQueue) EnqueueClosed(_ context.Context, p jobs.ClosedPayload) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = append(q.closed, p)
	return q.fail
}

func (q *fakeQueue) Resume(_ context.Context, inst int64) error {
	q.resumed = append(q.resumed, inst)
	return q.fail
}

type fakePerms map[string]string // user → permission; "error" fails

func (p fakePerms) Permission(_ context.Context, _ int64, _, _, user string) (string, error) {
	if p[user] == "error" {
		return "", errors.New("GET permission: 500 Internal Server Error")
	}
	if perm, ok := p[user]; ok {
		return perm, nil
	}
	return "none", nil
}

type fakeApp struct {
	invalidated []int64
	logins      int // BotLogin calls: a GET /app when the login is not cached
}

func (a *fakeApp) BotLogin(context.Context) (string, error) {
	a.logins++
	return "warden-test[bot]", nil
}
func (a *fakeApp) Invalidate(id int64) { a.invalidated = append(a.invalidated, id) }

type memDeliveries struct {
	mu   sync.Mutex
	seen map[string]string
	fail error
}

func (d *memDeliveries) Begin(_ context.Context, id string) (jobs.DeliveryState, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail != nil {
		return 0, d.fail
	}
	switch d.seen[id] {
	case "done":
		return jobs.DeliveryDone, nil
	case "pending":
		return jobs.DeliveryPending, nil
	}
	d.seen[id] = "pending"
	return jobs.DeliveryNew, nil
}
func (d *memDeliveries) Commit(_ context.Context, id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seen[id] = "done"
	return nil
}
func (d *memDeliveries) Abort(_ context.Context, id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.seen, id)
	return nil
}

type rig struct {
	h     *Handler
	q     *fakeQueue
	perms fakePerms
	app   *fakeApp
	store *memDeliveries
	e     *echo.Echo
}

func newRig() *rig {
	r := &rig{q: &fakeQueue{}, perms: fakePerms{"Codertocat": "admin", "octocat": "admin"}, app: &fakeApp{}, store: &memDeliveries{seen: map[string]string{}}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r.h = &Handler{Secret: []byte(testSecret), Deliveries: r.store, Log: log,
		Router: &Router{Prefix: "warden", Queue: r.q, Perms: r.perms, App: r.app, Log: log}}
	r.e = echo.New()
	r.e.POST("/webhooks", r.h.ServeHTTP)
	return r
}

func sign(body []byte) string {
	return "sha256=" + hmacHex([]byte(testSecret), body)
}

// post sends a delivery and returns the code and decoded answer.
func (r *rig) post(t testing.TB, event, id string, body []byte, hdr map[string]string) (int, Decision) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/webhooks", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", sign(body))
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	rec := httptest.NewRecorder()
	r.e.ServeHTTP(rec, req)
	var d Decision
	_ = json.Unmarshal(rec.Body.Bytes(), &d)
	if d.Status == "" {
		t.Fatalf("answer without status: %s", rec.Body.String())
	}
	return rec.Code, d
}
