package bench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/labstack/echo/v4"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/harness"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// rawTask is the run task intake queues for the example issue, built
// directly: the baseline enqueues the same payload, title and body included.
func rawTask(b *testing.B, issue int) *asynq.Task {
	p := jobs.RunPayload{Repo: "bench/raw", Installation: 1, Issue: issue, IssueID: int64(issue), Mode: "maintenance",
		Title: exampleIssue.Title, Body: exampleIssue.Body, CloneURL: "https://github.com/bench/raw.git",
		DefaultBranch: "main", Sender: "Codertocat", Delivery: fmt.Sprintf("raw-%d", issue), Reason: jobs.ReasonLabel}
	task, err := jobs.NewRunTask(p)
	if err != nil {
		b.Fatal(err)
	}
	return task
}

var exampleIssue struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// inProcess serves one signed delivery through the echo instance without
// a socket: the handler's own cost, with no HTTP client sharing the cores.
func inProcess(e *echo.Echo, body []byte, id string) error {
	req := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issues")
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", harness.Sign([]byte("bench"), body))
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted {
		return fmt.Errorf("delivery %s answered %d: %s", id, rec.Code, rec.Body)
	}
	return nil
}
