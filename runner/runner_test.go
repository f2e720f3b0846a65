package runner

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/github/githubapp"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/test/fakegithub"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// world is the fake GitHub with acme/app#7 and an embedded Redis.
type world struct {
	gh      *fakegithub.Server
	backend *jobs.Backend
	queue   *jobs.Queue
	hosts   *Hosts
}

func newWorld(t *testing.T) *world {
	t.Helper()
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	gh.AddInstallation(7)
	gh.AddRepo("acme", "app", "file:///nowhere", "main")
	gh.AddIssue("acme/app", 7, "Fix Add", "", "alice", "warden:maintenance", "warden:blocked")
	app, err := githubapp.New(githubapp.Options{AppID: gh.AppID(), PrivateKey: gh.PrivateKeyPEM(), BaseURL: gh.URL()})
	if err != nil {
		t.Fatal(err)
	}
	backend, err := jobs.Open("", quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	q := jobs.NewQueue(backend)
	t.Cleanup(func() { q.Close() })
	return &world{gh: gh, backend: backend, queue: q, hosts: &Hosts{App: app, Prefix: "warden", Redactor: comments.NewRedactor(), GitHubURL: gh.GitURL()}}
}

func (w *world) poster() *StatusPoster {
	return &StatusPoster{Hosts: w.hosts, Locks: jobs.NewLocks(w.backend.RDB, jobs.RunLockTTL), Queue: w.queue, IDs: jobs.NewStatusIDs(w.backend.RDB)}
}

func (w *world) comments() []string {
	var out []string
	for _, c := range w.gh.Comments("acme/app", 7) {
		out = append(out, c.Body)
	}
	return out
}

func TestStatusRepliesAndReports(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	p := w.poster()
	if err := p.PostStatus(ctx, jobs.StatusPayload{Repo: "acme/app", Issue: 7, Installation: 7, State: "reply", Note: "Only writers may do that."}); err != nil {
		t.Fatal(err)
	}
	if err := p.PostStatus(ctx, jobs.StatusPayload{Repo: "acme/app", Issue: 7, Installation: 7, State: "status"}); err != nil {
		t.Fatal(err)
	}
	got := w.comments()
	if len(got) != 2 || !strings.Contains(got[0], "Only writers may do that.") || !strings.Contains(got[1], "Warden state: **blocked**.") {
		t.Fatalf("comments %q", got)
	}
	if err := p.PostStatus(ctx, jobs.StatusPayload{Repo: "acme/app", Issue: 7, Installation: 7, State: "frobnicated"}); err == nil {
		t.Fatal("unknown state accepted")
	}
}

// "queued" is posted only while the task still waits in the queue.
func TestQueuedOnlyWhileWaiting(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	p := w.poster()
	st := jobs.StatusPayload{Repo: "acme/app", Issue: 7, Installation: 7, State: "queued", Mode: "maintenance"}
	if err := p.PostStatus(ctx, st); err != nil || len(w.comments()) != 0 {
		t.Fatalf("nothing queued, yet: %v %q", err, w.comments())
	}
	if _, err := w.queue.EnqueueRun(ctx, jobs.RunPayload{Repo: "acme/app", Issue: 7, Installation: 7, Mode: "maintenance"}); err != nil {
		t.Fatal(err)
	}
	if err := p.PostStatus(ctx, st); err != nil {
		t.Fatal(err)
	}
	if got := w.comments(); len(got) != 1 || !strings.Contains(got[0], "Warden: Queued") {
		t.Fatalf("comments %q", got)
	}
	if !slices.Contains(w.gh.Labels("acme/app", 7), "warden:queued") {
		t.Fatalf("labels %v", w.gh.Labels("acme/app", 7))
	}
}

func TestCanceledIsEscalated(t *testing.T) {
	w := newWorld(t)
	err := w.poster().PostStatus(context.Background(), jobs.StatusPayload{Repo: "acme/app", Issue: 7, Installation: 7, State: "canceled", Mode: "maintenance", Note: "by /warden cancel"})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(w.comments(), "\n")
	if !strings.Contains(all, "Canceled before it started: by /warden cancel") || !slices.Contains(w.gh.Labels("acme/app", 7), "warden:escalated") {
		t.Fatalf("comments %q labels %v", all, w.gh.Labels("acme/app", 7))
	}
}

func TestWithoutAppTasksAreRetried(t *testing.T) {
	r := &Runner{Hosts: &Hosts{}, Log: quiet}
	res := r.Run(context.Background(), jobs.RunPayload{Repo: "acme/app", Issue: 7}, jobs.Attempt{})
	if res.Record.Outcome != outcome.Retryable || res.Record.FailureClass != outcome.Transient {
		t.Fatalf("%+v", res.Record)
	}
	if err := (&StatusPoster{Hosts: &Hosts{}}).PostStatus(context.Background(), jobs.StatusPayload{State: "reply"}); err == nil {
		t.Fatal("status posted without an App")
	}
}

func TestHooks(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	rdb := w.backend.RDB
	h := &Hooks{History: jobs.NewHistory(rdb), Links: jobs.NewLinks(rdb), Interventions: jobs.NewInterventions(rdb), Queue: w.queue, Log: quiet}
	task := pipeline.Task{Repo: "acme/app", Issue: 7, Installation: 7, Mode: "evolution", Depth: 1}
	rec := outcome.Record{Outcome: outcome.Blocked, Obstacle: outcome.Obstacle{Task: "#3"}}.Normalize()
	h.OnOutcome(ctx, task, rec)
	if lines, _ := h.History.List(ctx, "acme/app", 10); len(lines) != 1 || !strings.Contains(lines[0], `"blocked"`) {
		t.Fatalf("history %q", lines)
	}
	if blocked, _ := h.Links.Unblock(ctx, "acme/app", 3); !slices.Equal(blocked, []int{7}) {
		t.Fatalf("closing #3 unblocks %v", blocked)
	}
	if err := h.Spawn(ctx, task, 12); err != nil {
		t.Fatal(err)
	}
	if n, _ := h.Tree(ctx, task); n < 1 {
		t.Fatalf("tree size %d after a spawn", n)
	}
	if waiting, _ := w.queue.Waiting(jobs.RunTaskID("acme/app", 12)); !waiting {
		t.Fatal("the sub-issue's task is not queued")
	}
	h.OnIntervention(ctx, task, "restart intensity exceeded")
	if list, _ := h.Interventions.List(ctx); len(list) != 1 || list[0].Issue != 7 || list[0].Reason != "restart intensity exceeded" {
		t.Fatalf("interventions %+v", list)
	}
}

// Commits are authored as the App's bot user: the e-mail is
// <id>+<login>@users.noreply.github.com, not 0+…. The id comes with the
// answer to the host's first comment (the status comment, written before
// any commit), so GitHub is not asked for the bot's user at all.
func TestHostIsTheAppsBot(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	want := fmt.Sprintf("%d+%s@users.noreply.github.com", fakegithub.BotUserID, fakegithub.BotLogin)
	for i := range 2 {
		h, err := w.hosts.Host(ctx, "acme/app", 7, 7, "", "main")
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := h.Status(ctx, comments.Status{State: "running"}); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := h.CommitEmail(ctx); err != nil || h.BotLogin != fakegithub.BotLogin || got != want {
			t.Fatalf("host bot %q, e-mail %q, %v; want %q", h.BotLogin, got, err, want)
		}
	}
	if n := w.gh.CountCalls("GET", "/users/"); n != 0 {
		t.Fatalf("bot user asked %d times", n)
	}
}
