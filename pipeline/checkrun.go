package pipeline

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/observe/transcript"
	"github.com/warden-bot/warden/outcome"
)

// CheckRunName is the check run that carries a pushing attempt's transcript.
const CheckRunName = "Warden"

// checkRunner is a Host that can put a transcript on a pushed head.
type checkRunner interface {
	CheckRun(ctx context.Context, sha, conclusion, summary, text string) (url string, err error)
}

// cleaner is a Host that redacts text before it leaves the worker.
type cleaner interface{ Clean(string) string }

// CheckRun creates the completed `Warden` check run on sha, with the
// outcome in a sentence and the transcript, which the caller redacted
// once for here and the operator page; its page's URL is returned for the
// outcome comment.
func (h *GitHubHost) CheckRun(ctx context.Context, sha, conclusion, summary, text string) (string, error) {
	now := github.Timestamp{Time: time.Now()}
	run, _, err := h.Client.Checks.CreateCheckRun(ctx, h.Owner, h.Name, github.CreateCheckRunOptions{
		Name: CheckRunName, HeadSHA: sha, Status: github.String("completed"), Conclusion: github.String(conclusion),
		CompletedAt: &now,
		Output: &github.CheckRunOutput{Title: github.String("Warden's run of #" + fmt.Sprint(h.Number)),
			Summary: github.String(h.Clean(summary)), Text: github.String(text)},
	})
	if err != nil {
		return "", fmt.Errorf("create check run on %s@%s: %w", h.repo(), sha, err)
	}
	return run.GetHTMLURL(), nil
}

// Clean redacts s as every comment is redacted.
func (h *GitHubHost) Clean(s string) string {
	if h.Poster == nil {
		return s
	}
	return h.Poster.Clean(s)
}

// publishTranscript puts the attempt's transcript where a maintainer can
// read it — the `Warden` check run on the head it pushed, else the
// operator page — and says where in the outcome comment. Failing to
// publish it never changes the outcome.
func (a *attempt) publishTranscript(ctx context.Context, rec outcome.Record, d *comments.Details) {
	a.closeTranscript(rec)
	text := a.tx.Render(transcript.MaxText-4096, comments.NeutralizeFenced) // room for redaction
	if c, ok := a.host.(cleaner); ok {
		text = c.Clean(text)
	}
	where := ""
	if a.p.OnTranscript != nil {
		where = a.p.OnTranscript(ctx, a.t, text)
	}
	if cr, ok := a.host.(checkRunner); ok && a.release.HeadSHA != "" {
		url, err := cr.CheckRun(ctx, a.release.HeadSHA, conclusionOf(rec), sentence(rec), text)
		if err == nil {
			d.Transcript = "the `" + CheckRunName + "` check run on the pushed head, " + url
			return
		}
		a.log.Warn("transcript check run not created", "err", err)
	}
	if where != "" {
		d.Transcript = "on Warden's operator page, `" + where + "`"
	}
}

// conclusionOf is the check run's conclusion: it reports the run, not CI,
// so only a completed attempt is a success and nothing else fails the head.
func conclusionOf(rec outcome.Record) string {
	if rec.Outcome == outcome.Completed {
		return "success"
	}
	return "neutral"
}

// sentence is the outcome in one sentence, for the check run's summary.
func sentence(rec outcome.Record) string {
	s := fmt.Sprintf("Attempt %d ended %s", rec.Attempt, rec.Outcome)
	if rec.FailureClass != "" && rec.FailureClass != outcome.None {
		s += fmt.Sprintf(" (%s)", rec.FailureClass)
	}
	if first, _, _ := strings.Cut(strings.TrimSpace(rec.Summary), "\n"); first != "" {
		s += ": " + first
	}
	return strings.TrimSuffix(s, ".") + "."
}
