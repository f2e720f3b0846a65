package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/harness"
)

// Issue #2's first slice: a signed issues.labeled delivery becomes a task and
// the worker answers on the issue with the sticky status comment and a state label.
func TestLabeledIssueIsQueuedAndAnswered(t *testing.T) {
	w := newWorld(t, nil)
	w.Model.Script(happyScript) // the worker goes on to run the pipeline
	if code := w.Label(1, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice"); code != http.StatusAccepted {
		t.Fatalf("labeled delivery answered %d", code)
	}
	w.Eventually(20*time.Second, func() bool { return w.CommentWith(1, "<!-- warden:status -->") != "" }, "no status comment")
	w.Eventually(20*time.Second, func() bool {
		for _, s := range []string{"queued", "running", "pr-open", "completed", "escalated", "retrying"} {
			if w.HasLabel(1, "warden:"+s) {
				return true
			}
		}
		return false
	}, "no state label")
}

func TestTriageUserIsRefused(t *testing.T) {
	w := newWorld(t, nil)
	if code := w.Label(2, "Anything", "", "warden:maintenance", "trudy"); code != http.StatusOK {
		t.Fatalf("refused delivery answered %d", code)
	}
	time.Sleep(500 * time.Millisecond) // nothing may appear: give a wrong worker time to act
	if len(w.BotComments(2)) != 0 {
		t.Fatalf("refused trigger produced comments: %v", w.BotComments(2))
	}
}

// make run's shape: no Redis URL (embedded Redis), no App: the probes answer.
func TestEmbeddedRedisServesProbes(t *testing.T) {
	bot := harness.StartBot(t, map[string]string{"WARDEN_WEBHOOK_SECRET": "dev", "WARDEN_DATA_DIR": t.TempDir()})
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		resp, err := harness.GetOps(bot.URL() + path)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	if !strings.Contains(bot.Logs(), "embedded in-process Redis") {
		t.Fatalf("no warning about the embedded Redis:\n%s", bot.Logs())
	}
}
