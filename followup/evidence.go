package followup

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
)

// Bounds on CI evidence: the tail of a log is where the failure is.
const (
	maxFailingRuns = 3
	maxAnnotations = 20
	maxLogTail     = 6 << 10
	maxLogRead     = 4 << 20
)

// Evidence collects what failed on sha, for a CI-fix follow-up: each
// failing check run's output (title, summary, text), its annotations
// (path, line, message) and, for GitHub Actions, its job log's tail.
// Everything passes through redact before it reaches a prompt.
func Evidence(ctx context.Context, c *github.Client, owner, name, sha string, redact func(string) string) (Item, error) {
	runs, _, err := c.Checks.ListCheckRunsForRef(ctx, owner, name, sha, &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return Item{}, fmt.Errorf("check runs of %s: %w", sha, err)
	}
	var b strings.Builder
	n := 0
	for _, run := range runs.CheckRuns {
		if run.GetStatus() != "completed" || okConclusion(run.GetConclusion()) || n >= maxFailingRuns {
			continue
		}
		n++
		describeRun(ctx, c, owner, name, run, &b)
	}
	if n == 0 {
		b.WriteString("A commit status on the head failed; no check run output is available.\n")
	}
	return Item{Kind: KindCI, SHA: sha, Body: redact(b.String())}, nil
}

func okConclusion(c string) bool { return c == "success" || c == "neutral" || c == "skipped" }

func describeRun(ctx context.Context, c *github.Client, owner, name string, run *github.CheckRun, b *strings.Builder) {
	fmt.Fprintf(b, "Check run %q concluded %s.\n", run.GetName(), run.GetConclusion())
	out := run.GetOutput()
	for _, f := range []struct{ label, text string }{{"Title", out.GetTitle()}, {"Summary", out.GetSummary()}, {"Details", out.GetText()}} {
		if t := strings.TrimSpace(f.text); t != "" {
			fmt.Fprintf(b, "%s: %s\n", f.label, clip(t, maxLogTail))
		}
	}
	if out.GetAnnotationsCount() > 0 {
		anns, _, err := c.Checks.ListCheckRunAnnotations(ctx, owner, name, run.GetID(), &github.ListOptions{PerPage: maxAnnotations})
		if err == nil && len(anns) > 0 {
			b.WriteString("Annotations:\n")
			for _, a := range anns {
				fmt.Fprintf(b, "- %s:%d: %s: %s\n", a.GetPath(), a.GetStartLine(), a.GetAnnotationLevel(), strings.TrimSpace(a.GetMessage()))
			}
		}
	}
	if run.GetApp().GetSlug() == "github-actions" {
		if tail, err := jobLogTail(ctx, c, owner, name, run.GetID()); err == nil && tail != "" {
			fmt.Fprintf(b, "The job log's last lines:\n```\n%s\n```\n", tail)
		}
	}
	b.WriteString("\n")
}

// jobLogTail reads an Actions job's log (a check run's id is its job's id)
// through the redirect GitHub answers, keeping only its tail.
func jobLogTail(ctx context.Context, c *github.Client, owner, name string, job int64) (string, error) {
	u, _, err := c.Actions.GetWorkflowJobLogs(ctx, owner, name, job, 2)
	if err != nil {
		return "", fmt.Errorf("job %d log: %w", job, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("job %d log: %w", job, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("job %d log: %s", job, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxLogRead))
	if err != nil {
		return "", err
	}
	return tailOf(string(data), maxLogTail), nil
}

func tailOf(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.ToValidUTF8(s, "")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + " [… cut …]"
}
