package systemic

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/github/githubapp"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/supervisor"
	"github.com/warden-bot/warden/test/fakegithub"
)

func TestAlertsGroupFailuresByRepository(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	got := Alerts([]supervisor.Failure{
		{Task: "acme/app#1", Scope: "7:acme/app", Fingerprint: "fp-a", At: at},
		{Task: "acme/lib#4", Scope: "8:acme/lib", Fingerprint: "fp-a", At: at},
		{Task: "acme/app#2", Scope: "7:acme/app", Fingerprint: "fp-a", At: at},
		{Task: "acme/app#2", Scope: "7:acme/app", Fingerprint: "fp-b", At: at},
	})
	if len(got) != 2 {
		t.Fatalf("%d alerts: %+v", len(got), got)
	}
	app := got[0]
	if app.Repo != "acme/app" || app.Installation != 7 || !app.At.Equal(at) ||
		!slices.Equal(app.Fingerprints, []string{"fp-a", "fp-b"}) || !slices.Equal(app.Tasks, []string{"acme/app#1", "acme/app#2"}) {
		t.Fatalf("acme/app alert: %+v", app)
	}
	if got[1].Repo != "acme/lib" || got[1].Installation != 8 || len(got[1].Tasks) != 1 {
		t.Fatalf("acme/lib alert: %+v", got[1])
	}
}

func TestMergeAlertKeepsEachValueOnce(t *testing.T) {
	old := Alert{Repo: "acme/app", Installation: 1, Fingerprints: []string{"a"}, Tasks: []string{"acme/app#1"}}
	m := mergeAlert(old, Alert{Repo: "acme/app", Installation: 2, Fingerprints: []string{"a", "b"}, Tasks: []string{"acme/app#1", "acme/app#3"}})
	if !slices.Equal(m.Fingerprints, []string{"a", "b"}) || !slices.Equal(m.Tasks, []string{"acme/app#1", "acme/app#3"}) || m.Installation != 2 {
		t.Fatalf("%+v", m)
	}
	if fresh := mergeAlert(Alert{}, old); fresh.Repo != "acme/app" {
		t.Fatalf("nothing waiting: %+v", fresh)
	}
}

// filer is a Filer over the fake GitHub and a fresh Redis.
func filer(t *testing.T, gh *fakegithub.Server) (*Filer, *pausable) {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	app, err := githubapp.New(githubapp.Options{AppID: gh.AppID(), PrivateKey: gh.PrivateKeyPEM(), BaseURL: gh.URL()})
	if err != nil {
		t.Fatal(err)
	}
	q := &pausable{}
	return &Filer{Detector: &supervisor.Systemic{Log: jobs.NewFailureLog(rdb)}, Queue: q, Paused: jobs.NewPausedIssues(rdb),
		Client: app.Client, Dir: t.TempDir(), Prefix: "warden", Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, q
}

type pausable struct{ paused bool }

func (p *pausable) Pause(context.Context, int64) error { p.paused = true; return nil }

func fakeGitHub(t *testing.T) *fakegithub.Server {
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	gh.AddInstallation(7)
	gh.AddRepo("acme", "app", "file:///nowhere", "main")
	return gh
}

// GitHub down: the alert waits on disk (merged with the next one), and
// the retry files one issue once GitHub answers; a later alert updates it.
func TestAlertWaitsOnDiskUntilGitHubAnswers(t *testing.T) {
	gh := fakeGitHub(t)
	s, _ := filer(t, gh)
	ctx := context.Background()
	gh.SetDown(true)
	s.File(ctx, Alert{Repo: "acme/app", Installation: 7, Fingerprints: []string{"fp-a"}, Tasks: []string{"acme/app#1"}})
	s.File(ctx, Alert{Repo: "acme/app", Installation: 7, Fingerprints: []string{"fp-b"}, Tasks: []string{"acme/app#2"}})
	if _, err := os.Stat(filepath.Join(s.Dir, "paused-acme__app.json")); err != nil {
		t.Fatalf("alert not kept on disk: %v", err)
	}
	if n := len(gh.IssuesTitled("acme/app", "Warden paused")); n != 0 {
		t.Fatalf("%d issues while GitHub was down", n)
	}
	gh.SetDown(false)
	s.flush(ctx)
	issues := gh.IssuesTitled("acme/app", "Warden paused")
	if len(issues) != 1 {
		t.Fatalf("%d paused issues", len(issues))
	}
	for _, want := range []string{"`fp-a`", "`fp-b`", "acme/app#1, acme/app#2", "/warden resume"} {
		if !strings.Contains(issues[0].Body, want) {
			t.Errorf("body lacks %q:\n%s", want, issues[0].Body)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(s.Dir, "paused-*")); len(files) != 0 {
		t.Fatalf("filed alert still on disk: %v", files)
	}
	s.File(ctx, Alert{Repo: "acme/app", Installation: 7, Fingerprints: []string{"fp-c"}, Tasks: []string{"acme/app#3"}})
	issues = gh.IssuesTitled("acme/app", "Warden paused")
	if len(issues) != 1 || !strings.Contains(issues[0].Body, "fp-c") {
		t.Fatalf("a second trip did not update the one issue: %+v", issues)
	}
}

// Three terminal failures within the window trip the detector: the queue
// is paused, the event is emitted and the repository gets its issue.
func TestOnTerminalPausesAndFiles(t *testing.T) {
	gh := fakeGitHub(t)
	s, q := filer(t, gh)
	var events []supervisor.Event
	s.Event = func(_ pipeline.Task, e supervisor.Event) { events = append(events, e) }
	ctx := context.Background()
	for i := 1; i <= 5 && !q.paused; i++ {
		s.OnTerminal(ctx, pipeline.Task{Repo: "acme/app", Issue: i, Installation: 7}, outcome.Record{Fingerprint: "model-down"})
	}
	if !q.paused || len(events) != 1 || events[0].Kind != supervisor.EventQueuePaused {
		t.Fatalf("paused %v, events %+v", q.paused, events)
	}
	if n := len(gh.IssuesTitled("acme/app", "Warden paused")); n != 1 {
		t.Fatalf("%d paused issues", n)
	}
}

func TestNoAppKeepsTheAlert(t *testing.T) {
	s, _ := filer(t, fakeGitHub(t))
	s.Client = nil
	s.File(context.Background(), Alert{Repo: "acme/app", Fingerprints: []string{"x"}})
	if al := s.load("acme/app"); al.Repo != "acme/app" {
		t.Fatalf("alert lost without an App: %+v", al)
	}
}
