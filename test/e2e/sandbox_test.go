package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// withoutBwrap runs the bot with a PATH holding git, sh and go but no
// bubblewrap, as on a host where it is not installed.
func withoutBwrap(t *testing.T) option {
	bin := t.TempDir()
	for _, tool := range []string{"git", "sh", "go", "env", "tr", "cat"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return func(env map[string]string) { env["PATH"] = bin }
}

// Where isolation cannot be had, no repository command runs: the attempt
// ends escalated and says what to install (issue 17, "What breaks today" 2:
// "without it Warden silently runs unisolated").
func TestNoSandboxEscalatesNamingWhatToInstall(t *testing.T) {
	w := newWorld(t, withConfig("test: touch ran-unisolated; go test ./...\nmax_fix_attempts: 0\n"), withoutBwrap(t))
	w.Model.Script(happyScript)
	w.Label(18, "Add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(18, 90*time.Second)
	body := w.CommentWith(18, "<!-- warden:outcome")
	if rec.Outcome != outcome.Escalated || !strings.Contains(body, "bubblewrap") || len(w.GH.Pulls(repo)) != 0 {
		t.Fatalf("record = %+v\n%s", rec, body)
	}
	if !strings.Contains(w.Bot.Logs(), "repository commands are not isolated") {
		t.Fatalf("the start-up log does not say commands are not isolated:\n%s", tail(w.Bot.Logs(), 2000))
	}
}

// The operator's explicit opt-out runs commands bare, and says so at start.
func TestUnsafeOptOutRunsBare(t *testing.T) {
	noBwrap := withoutBwrap(t)
	w := newWorld(t, calcRepo(), noBwrap, func(env map[string]string) { env["WARDEN_UNSAFE_NO_SANDBOX"] = "1" })
	w.Model.Script(happyScript)
	w.Label(19, "Add returns the difference", "fix it", "warden:maintenance", "alice")
	if rec := w.OutcomeOf(19, 120*time.Second); rec.Outcome != outcome.Completed {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 3000))
	}
	if !strings.Contains(w.Bot.Logs(), "WARDEN_UNSAFE_NO_SANDBOX=1 runs repository commands without isolation") {
		t.Fatalf("the opt-out was not logged at start:\n%s", tail(w.Bot.Logs(), 2000))
	}
}
