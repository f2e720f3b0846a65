package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/github/githubapp"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/webhooks"
)

// The fixtures' repository, served by the fake GitHub.
const (
	repo = "Codertocat/Hello-World"
	inst = 7
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// world is the lifecycle between a webhook router and the fake GitHub: a
// real delivery (a fixture, with the fields the test controls set) is
// routed as the server routes it, and the payload it queues is handed to
// the Lifecycle as the worker hands it.
type world struct {
	t      *testing.T
	gh     *fakegithub.Server
	client *github.Client
	bare   string
	queue  *jobs.Queue
	links  *jobs.Links
	life   *Lifecycle
	router *webhooks.Router
	caught *catcher
}

func newWorld(t *testing.T) *world {
	t.Helper()
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	gh.AddInstallation(inst)
	bare, cloneURL := gitfixture.NewRepo(t, map[string]string{"README.md": "hello\n"})
	gh.AddRepo("Codertocat", "Hello-World", cloneURL, "main")
	app, err := githubapp.New(githubapp.Options{AppID: gh.AppID(), PrivateKey: gh.PrivateKeyPEM(), BaseURL: gh.URL()})
	if err != nil {
		t.Fatal(err)
	}
	backend, q := testQueue(t)
	links := jobs.NewLinks(backend.RDB)
	caught := &catcher{}
	return &world{t: t, gh: gh, client: app.Client(inst), bare: bare, queue: q, links: links, caught: caught,
		life: &Lifecycle{App: app, Queue: q, Links: links, Counter: jobs.NewCounter(backend.RDB), Prefix: "warden",
			Redactor: comments.NewRedactor(), Log: quiet, MaxCheckFixes: 2},
		router: &webhooks.Router{Prefix: "warden", Queue: caught, App: app, Log: quiet}}
}

// openPR pushes a branch for issue n and opens Warden's PR for it, with
// the marker naming the issue and mode (no marker when mode is "").
func (w *world) openPR(n int, mode string) (number int, sha string) {
	w.t.Helper()
	branch := fmt.Sprintf("warden/%d-fix", n)
	gitfixture.Commit(w.t, w.bare, branch, map[string]string{"fix.txt": branch})
	body := "Fixes #" + fmt.Sprint(n)
	if mode != "" {
		body += fmt.Sprintf("\n<!-- warden:pr {\"issue\":%d,\"mode\":%q} -->", n, mode)
	}
	pr, _, err := w.client.PullRequests.Create(context.Background(), "Codertocat", "Hello-World",
		&github.NewPullRequest{Title: github.String("Fix"), Head: github.String(branch), Base: github.String("main"), Body: github.String(body)})
	if err != nil {
		w.t.Fatal(err)
	}
	return pr.GetNumber(), pr.GetHead().GetSHA()
}

// deliver routes fixture as event, after set changes the fields the test
// controls; it returns what the router queued for the lifecycle.
func (w *world) deliver(event, fixture string, set func(m map[string]any)) *catcher {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "test", "fixtures", "webhooks", fixture))
	if err != nil {
		w.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		w.t.Fatal(err)
	}
	m["installation"] = map[string]any{"id": inst}
	set(m)
	b, _ = json.Marshal(m)
	*w.caught = catcher{}
	if _, err := w.router.Route(context.Background(), webhooks.Delivery{Event: event, ID: "d-1", Payload: b}); err != nil {
		w.t.Fatalf("route %s: %v", fixture, err)
	}
	return w.caught
}

// obj walks m along keys, creating nothing: the fixture has the shape.
func obj(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m = m[k].(map[string]any)
	}
	return m
}

// catcher is the router's queue: it keeps what the lifecycle would get.
type catcher struct {
	mu     sync.Mutex
	prs    []jobs.PRPayload
	closed []jobs.ClosedPayload
}

func (c *catcher) EnqueueRun(context.Context, jobs.RunPayload, ...asynq.Option) (jobs.EnqueueResult, error) {
	return jobs.Queued, nil
}
func (c *catcher) EnqueueStatus(context.Context, jobs.StatusPayload) error { return nil }
func (c *catcher) EnqueuePR(_ context.Context, p jobs.PRPayload) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prs = append(c.prs, p)
	return nil
}
func (c *catcher) EnqueueClosed(_ context.Context, p jobs.ClosedPayload) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = append(c.closed, p)
	return nil
}
func (c *catcher) Cancel(context.Context, string, int) (jobs.CancelResult, error) {
	return jobs.NothingToCancel, nil
}
func (c *catcher) Resume(context.Context, int64) error { return nil }

// modeStatus is the last warden/mode status on sha ("" for none).
func (w *world) modeStatus(sha string) (state, desc string) {
	for _, s := range w.gh.Statuses(repo, sha) {
		if s.Context == "warden/mode" {
			state, desc = s.State, s.Description
		}
	}
	return state, desc
}

// testQueue is a queue on the test's Redis, closed with the test.
func testQueue(t *testing.T) (*jobs.Backend, *jobs.Queue) {
	t.Helper()
	backend, err := jobs.Open("", quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	q := jobs.NewQueue(backend)
	t.Cleanup(func() { q.Close() })
	return backend, q
}
