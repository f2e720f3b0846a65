package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// comment delivers issue_comment.created on issue n, with its current labels.
func (w *world) comment(n int, body, sender string) int {
	w.t.Helper()
	var labels []any
	for _, l := range w.gh.Labels(repo, n) {
		labels = append(labels, map[string]any{"name": l})
	}
	return w.deliver("issue_comment", "issue_comment.created.json", func(m map[string]any) {
		is := m["issue"].(map[string]any)
		is["number"], is["labels"] = n, labels
		delete(is, "pull_request")
		m["comment"].(map[string]any)["body"] = body
		m["sender"].(map[string]any)["login"] = sender
	})
}

// paused reads the warden_queue_paused gauge of the default queue.
func (w *world) paused() bool {
	resp, err := http.Get(w.bot.URL() + "/metrics")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.Contains(string(b), `warden_queue_paused{queue="default"} 1`)
}

// Three distinct tasks failing for good within five minutes pause the
// queue and file one "Warden paused" issue listing the fingerprints; while
// GitHub refuses it, the alert waits in the data directory. `/warden
// resume` from a writer runs the queue again.
func TestSystemicFailuresPauseTheQueue(t *testing.T) {
	dataDir := t.TempDir()
	w := newWorld(t, calcRepo(), func(env map[string]string) { env["WARDEN_DATA_DIR"] = dataDir })
	fourFiles := `{"decision":"implement","summary":"s","approach":"a","files":["a.go","b.go","c.go","d.go"]}`
	w.model.Script(script(fourFiles, fixBlock))
	w.gh.FailNext(http.MethodPost, "/repos/"+repo+"/issues$", 1, http.StatusBadGateway, nil, nil) // the first filing meets an outage
	for _, n := range []int{60, 61, 62} {
		w.label(n, "Add returns the difference", "fix it", "warden:maintenance", "alice")
		if rec := w.outcomeOf(n, 90*time.Second); rec.Outcome != "escalated" {
			t.Fatalf("issue %d: %+v", n, rec)
		}
	}
	w.eventually(30*time.Second, w.paused, "queue not paused after three terminal failures")
	pending := filepath.Join(dataDir, "diagnostics", "paused-acme__calc.json")
	w.eventually(30*time.Second, func() bool { return len(w.gh.IssuesTitled(repo, "Warden paused")) == 1 }, "no Warden paused issue")
	alert := w.gh.IssuesTitled(repo, "Warden paused")[0]
	for _, want := range []string{"acme/calc#60", "acme/calc#62", "/warden resume", "`"} {
		if !strings.Contains(alert.Body, want) {
			t.Errorf("paused issue lacks %q:\n%s", want, alert.Body)
		}
	}
	w.eventually(10*time.Second, func() bool {
		_, err := os.Stat(pending)
		return os.IsNotExist(err)
	}, "the waiting alert was not removed once filed")
	if !strings.Contains(w.bot.Logs(), "kept in the data directory") {
		t.Errorf("the outage was not logged with the diagnostics file:\n%s", tail(w.bot.Logs(), 6000))
	}

	// While paused, new work waits; resume lets it run.
	w.model.Script(happyScript)
	w.label(63, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	if code := w.comment(63, "/warden resume", "alice"); code >= 300 {
		t.Fatalf("resume answered %d", code)
	}
	w.eventually(30*time.Second, func() bool { return !w.paused() }, "queue still paused after /warden resume")
	if rec := w.outcomeOf(63, 90*time.Second); rec.Outcome != "completed" {
		t.Fatalf("after resume: %+v", rec)
	}
}
