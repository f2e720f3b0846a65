// Package systemic acts on the application supervisor's verdict: when
// several tasks fail for good within minutes, the queue is paused and every
// affected repository gets one "Warden paused" issue. When GitHub cannot
// take the alert, it waits in the data directory and is filed once GitHub
// answers.
package systemic

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/supervisor"
)

// pauser stops the queue (jobs.Queue).
type pauser interface {
	Pause(ctx context.Context, installation int64) error
}

// Filer wires the detector to the queue and to GitHub.
type Filer struct {
	Detector *supervisor.Systemic
	Queue    pauser
	Paused   *jobs.PausedIssues
	// Client is the GitHub client of an installation; nil without a GitHub App.
	Client func(installation int64) *github.Client
	Event  func(pipeline.Task, supervisor.Event) // the queue-paused event; may be nil
	Dir    string                                // where unfiled alerts wait (<data>/diagnostics)
	Prefix string                                // label prefix
	Log    *slog.Logger
}

// Alert is one repository's pending "Warden paused" notice.
type Alert struct {
	Repo         string    `json:"repo"`
	Installation int64     `json:"installation"`
	Fingerprints []string  `json:"fingerprints"`
	Tasks        []string  `json:"tasks"`
	At           time.Time `json:"at"`
}

// OnTerminal is pipeline.Pipeline.OnTerminal: it feeds the detector and,
// when it trips, pauses the queue and files the alerts.
func (s *Filer) OnTerminal(ctx context.Context, t pipeline.Task, rec outcome.Record) {
	task := jobs.IssueKey(t.Repo, t.Issue)
	v, err := s.Detector.Observe(ctx, supervisor.Failure{Task: task, Scope: fmt.Sprintf("%d:%s", t.Installation, t.Repo), Fingerprint: rec.Fingerprint})
	if err != nil {
		s.Log.Warn("systemic detector unavailable", "task", task, "err", err)
		return
	}
	if !v.Tripped {
		return
	}
	if err := s.Queue.Pause(ctx, t.Installation); err != nil {
		s.Log.Error("installation not paused after systemic failures", "installation", t.Installation, "err", err)
	}
	if s.Event != nil {
		s.Event(t, supervisor.Event{Time: time.Now(), Kind: supervisor.EventQueuePaused, Supervisor: "application",
			Err: fmt.Errorf("%d tasks failed for good within 5 minutes", len(v.Recent))})
	}
	for _, al := range Alerts(v.Recent) {
		s.File(ctx, al)
	}
}

// Alerts groups the recent failures into one alert per repository.
func Alerts(recent []supervisor.Failure) []Alert {
	byScope := map[string]*Alert{}
	var order []string
	for _, f := range recent {
		al, ok := byScope[f.Scope]
		if !ok {
			inst, repo, _ := strings.Cut(f.Scope, ":")
			al = &Alert{Repo: repo, At: f.At.UTC()}
			fmt.Sscan(inst, &al.Installation)
			byScope[f.Scope] = al
			order = append(order, f.Scope)
		}
		al.Fingerprints = appendNew(al.Fingerprints, f.Fingerprint)
		al.Tasks = appendNew(al.Tasks, f.Task)
	}
	out := make([]Alert, 0, len(order))
	for _, k := range order {
		out = append(out, *byScope[k])
	}
	return out
}

// File opens or updates the repository's paused issue; when GitHub fails
// it keeps the alert on disk (merged with any waiting one) for RetryPending.
func (s *Filer) File(ctx context.Context, al Alert) {
	err := s.fileGitHub(ctx, al)
	if err == nil {
		_ = os.Remove(s.path(al.Repo))
		return
	}
	merged := mergeAlert(s.load(al.Repo), al)
	if werr := s.save(merged); werr != nil {
		s.Log.Error("systemic alert lost: neither GitHub nor the data directory took it", "repo", al.Repo, "err", err, "write_err", werr)
		return
	}
	s.Log.Error("systemic alert not filed on GitHub; kept in the data directory until GitHub answers",
		"repo", al.Repo, "file", s.path(al.Repo), "fingerprints", merged.Fingerprints, "err", err)
}

func (s *Filer) fileGitHub(ctx context.Context, al Alert) error {
	if s.Client == nil {
		return fmt.Errorf("no GitHub App configured")
	}
	c := s.Client(al.Installation)
	owner, name, _ := strings.Cut(al.Repo, "/")
	body := pausedBody(s.Prefix, al)
	n, err := s.Paused.Get(ctx, al.Repo)
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
	return s.Paused.Set(ctx, al.Repo, is.GetNumber())
}

func pausedBody(prefix string, al Alert) string {
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
