package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/test/harness"
)

// paused reports whether the world's installation is paused (its key in
// the bot's Redis database): the pause is per installation, so the
// default queue itself keeps running for every other tenant.
func (w *world) paused() bool {
	rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(w.T), DB: w.DB})
	defer rdb.Close()
	n, err := rdb.Exists(context.Background(), fmt.Sprintf("warden:paused:%d", inst)).Result()
	return err == nil && n == 1
}

// Three distinct tasks failing for good within five minutes pause the
// queue and file one "Warden paused" issue listing the fingerprints; while
// GitHub refuses it, the alert waits in the data directory. `/warden
// resume` from a writer runs the queue again.
func TestSystemicFailuresPauseTheQueue(t *testing.T) {
	dataDir := t.TempDir()
	w := newWorld(t, calcRepo(), func(env map[string]string) { env["WARDEN_DATA_DIR"] = dataDir })
	fourFiles := `{"decision":"implement","summary":"s","approach":"a","files":["a.go","b.go","c.go","d.go"]}`
	w.Model.Script(script(fourFiles, fixBlock))
	w.GH.FailNext(http.MethodPost, "/repos/"+repo+"/issues$", 1, http.StatusBadGateway, nil, nil) // the first filing meets an outage
	for _, n := range []int{60, 61, 62} {
		w.Label(n, "Add returns the difference", "fix it", "warden:maintenance", "alice")
		if rec := w.OutcomeOf(n, 90*time.Second); rec.Outcome != "escalated" {
			t.Fatalf("issue %d: %+v", n, rec)
		}
	}
	w.Eventually(30*time.Second, w.paused, "queue not paused after three terminal failures")
	pending := filepath.Join(dataDir, "diagnostics", "paused-acme__calc.json")
	w.Eventually(30*time.Second, func() bool { return len(w.GH.IssuesTitled(repo, "Warden paused")) == 1 }, "no Warden paused issue")
	alert := w.GH.IssuesTitled(repo, "Warden paused")[0]
	for _, want := range []string{"acme/calc#60", "acme/calc#62", "/warden resume", "`"} {
		if !strings.Contains(alert.Body, want) {
			t.Errorf("paused issue lacks %q:\n%s", want, alert.Body)
		}
	}
	w.Eventually(10*time.Second, func() bool {
		_, err := os.Stat(pending)
		return os.IsNotExist(err)
	}, "the waiting alert was not removed once filed")
	if !strings.Contains(w.Bot.Logs(), "kept in the data directory") {
		t.Errorf("the outage was not logged with the diagnostics file:\n%s", tail(w.Bot.Logs(), 6000))
	}

	// While paused, new work waits; resume lets it run.
	w.Model.Script(happyScript)
	w.Label(63, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	if code := w.Comment(63, "/warden resume", "alice"); code >= 300 {
		t.Fatalf("resume answered %d", code)
	}
	w.Eventually(30*time.Second, func() bool { return !w.paused() }, "queue still paused after /warden resume")
	if rec := w.OutcomeOf(63, 90*time.Second); rec.Outcome != "completed" {
		t.Fatalf("after resume: %+v", rec)
	}
}
