package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// execAgent runs the bot with WARDEN_AGENT=exec and the given command.
func execAgent(cmd string) option {
	return func(env map[string]string) { env["WARDEN_AGENT"], env["WARDEN_AGENT_COMMAND"] = "exec", cmd }
}

// execPlan is what the exec agent prints at the plan stage.
const execPlan = `if [ "$WARDEN_STAGE" = plan ]; then echo '{"decision":"implement","summary":"s","approach":"a","files":["calc/calc.go"]}'; exit 0; fi; `

// The exec agent (issue 17, "Isolation") finds no secret of Warden's: not in
// its environment, its parent's, nor any process's it can list. It counts
// what it finds into the worktree, which Warden commits.
func TestExecAgentSeesNoSecret(t *testing.T) {
	find := `{ env; for f in /proc/*/environ; do tr '\0' '\n' < "$f"; echo; done; } 2>/dev/null | grep -v '^WARDEN_STAGE=' | grep -c 'WARDEN_\|sk-test-e2e-key\|ghs_\|PRIVATE KEY' > calc/leaks.txt; `
	w := newWorld(t, calcRepo(), execAgent(execPlan+find+`sed -i 's/a - b/a + b/' calc/calc.go`))
	w.Label(91, "Add returns the difference", "calc.Add is wrong.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(91, 90*time.Second)
	if rec.Outcome != outcome.Completed || rec.PR == 0 {
		t.Fatalf("record %+v\n%s\n%s", rec, w.CommentWith(91, "<!-- warden:outcome"), tail(w.Bot.Logs(), 3000))
	}
	if got := readBranch(t, w.Bare, w.Pull().Head, "calc/leaks.txt"); got != "0\n" {
		t.Fatalf("the exec agent found %q lines holding a secret of Warden's", got)
	}
}

// Where isolation cannot be had the exec agent does not run: the attempt
// ends escalated naming what to install.
func TestExecAgentWithoutSandboxEscalates(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	w := newWorld(t, calcRepo(), withoutBwrap(t), execAgent(": > "+marker+"; "+execPlan))
	w.Label(92, "Add returns the difference", "calc.Add is wrong.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(92, 90*time.Second)
	body := w.CommentWith(92, "<!-- warden:outcome")
	if rec.Outcome != outcome.Escalated || !strings.Contains(body, "bubblewrap") || len(w.GH.Pulls(repo)) != 0 {
		t.Fatalf("record %+v\n%s", rec, body)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the exec agent ran without isolation")
	}
}
