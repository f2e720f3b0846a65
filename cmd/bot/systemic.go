package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/supervisor"
)

// systemic wires the application supervisor's detector: terminal outcomes
// feed it; when it trips, the queue is paused and every affected
// repository gets one "Warden paused" issue. When GitHub cannot take the
// alert, it waits in the data directory and is filed once GitHub answers.
type systemic struct {
	a      *app
	det    *supervisor.Systemic
	paused *jobs.PausedIssues
	sink   *eventSink
	dir    string // <data>/diagnostics
}

// alert is one repository's pending "Warden paused" notice.
type alert struct {
	Repo         string    `json:"repo"`
	Installation int64     `json:"installation"`
	Fingerprints []string  `json:"fingerprints"`
	Tasks        []string  `json:"tasks"`
	At           time.Time `json:"at"`
}

func newSystemic(a *app, sink *eventSink) *systemic {
	return &systemic{a: a, sink: sink, paused: jobs.NewPausedIssues(a.backend.RDB),
		det: &supervisor.Systemic{Log: jobs.NewFailureLog(a.backend.RDB)}, dir: filepath.Join(a.cfg.DataDir, "diagnostics")}
}

// onTerminal is pipeline.Pipeline.OnTerminal.
func (s *systemic) onTerminal(ctx context.Context, t pipeline.Task, rec outcome.Record) {
	task := jobs.IssueKey(t.Repo, t.Issue)
	v, err := s.det.Observe(ctx, supervisor.Failure{Task: task, Scope: fmt.Sprintf("%d:%s", t.Installation, t.Repo), Fingerprint: rec.Fingerprint})
	if err != nil {
		s.a.log.Warn("systemic detector unavailable", "task", task, "err", err)
		return
	}
	if !v.Tripped {
		return
	}
	if err := s.a.queue.Pause(ctx, t.Installation); err != nil {
		s.a.log.Error("installation not paused after systemic failures", "installation", t.Installation, "err", err)
	}
	s.sink.supervisor(t, supervisor.Event{Time: time.Now(), Kind: supervisor.EventQueuePaused, Supervisor: "application",
		Err: fmt.Errorf("%d tasks failed for good within 5 minutes", len(v.Recent))})
	for _, al := range alerts(v.Recent) {
		s.file(ctx, al)
	}
}

// alerts groups the recent failures into one alert per repository.
func alerts(recent []supervisor.Failure) []alert {
	byScope := map[string]*alert{}
	var order []string
	for _, f := range recent {
		al, ok := byScope[f.Scope]
		if !ok {
			inst, repo, _ := strings.Cut(f.Scope, ":")
			al = &alert{Repo: repo, At: f.At.UTC()}
			fmt.Sscan(inst, &al.Installation)
			byScope[f.Scope] = al
			order = append(order, f.Scope)
		}
		al.Fingerprints = appendNew(al.Fingerprints, f.Fingerprint)
		al.Tasks = appendNew(al.Tasks, f.Task)
	}
	out := make([]alert, 0, len(order))
	for _, k := range order {
		out = append(out, *byScope[k])
	}
	return out
}

// file opens or updates the repository's paused issue; when GitHub fails
// it keeps the alert on disk (merged with any waiting one) for retryPending.
func (s *systemic) file(ctx context.Context, al alert) {
	err := s.fileGitHub(ctx, al)
	if err == nil {
		_ = os.Remove(s.path(al.Repo))
		return
	}
	merged := mergeAlert(s.load(al.Repo), al)
	if werr := s.save(merged); werr != nil {
		s.a.log.Error("systemic alert lost: neither GitHub nor the data directory took it", "repo", al.Repo, "err", err, "write_err", werr)
		return
	}
	s.a.log.Error("systemic alert not filed on GitHub; kept in the data directory until GitHub answers",
		"repo", al.Repo, "file", s.path(al.Repo), "fingerprints", merged.Fingerprints, "err", err)
}

func (s *systemic) fileGitHub(ctx context.Context, al alert) error {
	if s.a.gh == nil {
		return fmt.Errorf("no GitHub App configured")
	}
	c := s.a.gh.Client(al.Installation)
	owner, name, _ := strings.Cut(al.Repo, "/")
	body := pausedBody(s.a.cfg.LabelPrefix, al)
	n, err := s.paused.Get(ctx, al.Repo)
	if err != nil {
		return err
	}
	if n > 0 {
		_, _, err = c.Issues.Edit(ctx, owner, name, n, &github.IssueRequest{Body: &body, State: github.String("open")})
		if err != nil {
			return fmt.Errorf("update paused issue %s#%d: %w", al.Repo, n, err)
		}
		return nil
	}
	is, _, err := c.Issues.Create(ctx, owner, name, &github.IssueRequest{Title: github.String("Warden paused"), Body: &body})
	if err != nil {
		return fmt.Errorf("open paused issue on %s: %w", al.Repo, err)
	}
	return s.paused.Set(ctx, al.Repo, is.GetNumber())
}

func pausedBody(prefix string, al alert) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- %s:paused -->\nWarden paused its queue at %s: several tasks failed for good within five minutes, "+
		"so the cause is probably something they share (the model endpoint, credentials, the test runner) rather than any one issue.\n\n",
		prefix, al.At.Format(time.RFC3339))
	b.WriteString("Failure fingerprints:\n")
	for _, fp := range al.Fingerprints {
		fmt.Fprintf(&b, "- `%s`\n", fp)
	}
	b.WriteString("\nTasks of this repository that failed: " + strings.Join(al.Tasks, ", ") + "\n\n")
	fmt.Fprintf(&b, "Queued work is kept. Once the cause is fixed, a maintainer comments `/%s resume` on any issue to run the queue again.\n", prefix)
	return b.String()
}
