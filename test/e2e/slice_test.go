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
	w.model.Script(happyScript) // the worker goes on to run the pipeline
	if code := w.label(1, "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice"); code != http.StatusAccepted {
		t.Fatalf("labeled delivery answered %d", code)
	}
	w.eventually(20*time.Second, func() bool { return w.commentWith(1, "<!-- warden:status -->") != "" }, "no status comment")
	w.eventually(20*time.Second, func() bool {
		for _, s := range []string{"queued", "running", "pr-open", "completed", "escalated", "retrying"} {
			if w.hasLabel(1, "warden:"+s) {
				return true
			}
		}
		return false
	}, "no state label")
}

func TestTriageUserIsRefused(t *testing.T) {
	w := newWorld(t, nil)
	if code := w.label(2, "Anything", "", "warden:maintenance", "trudy"); code != http.StatusOK {
		t.Fatalf("refused delivery answered %d", code)
	}
	time.Sleep(500 * time.Millisecond) // nothing may appear: give a wrong worker time to act
	if len(w.botComments(2)) != 0 {
		t.Fatalf("refused trigger produced comments: %v", w.botComments(2))
	}
}

// make run's shape: no Redis URL (embedded Redis), no App: the probes answer.
func TestEmbeddedRedisServesProbes(t *testing.T) {
	bot := harness.StartBot(t, map[string]string{"WARDEN_WEBHOOK_SECRET": "dev", "WARDEN_DATA_DIR": t.TempDir()})
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		resp, err := http.Get(bot.URL() + path)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	if !strings.Contains(bot.Logs(), "embedded in-process Redis") {
		t.Fatalf("no warning about the embedded Redis:\n%s", bot.Logs())
	}
}
