package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-bot/warden/agent/agentcli"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/harness"
)

const realKey = "sk-test-e2e-key-0123456789"

// withCLI runs the bot with WARDEN_AGENT=preset: the CLI installed by
// scripts/agent-clis.sh, the fake model as the real endpoint behind the proxy.
func withCLI(t *testing.T, preset string) option {
	p := agentcli.Presets[preset]
	dir := os.Getenv("WARDEN_AGENT_CLIS")
	if dir == "" {
		dir = "/var/cache/warden/agent-clis"
	}
	bin := filepath.Join(dir, "node_modules", ".bin", p.Bin)
	if _, _, err := agentcli.Resolve(p, bin); err != nil {
		t.Fatalf("%v (make test runs scripts/agent-clis.sh)", err)
	}
	return func(env map[string]string) {
		env["WARDEN_AGENT"], env["WARDEN_AGENT_BIN"] = preset, bin
		if p.API == "anthropic" { // the API root, as for the official SDK
			env["WARDEN_LLM_API"] = "anthropic"
			env["WARDEN_LLM_BASE_URL"] = strings.TrimSuffix(env["WARDEN_LLM_BASE_URL"], "/v1")
		}
		env["WARDEN_LLM_MODEL"] = p.Model
	}
}

// cliScript reads calc.go, fixes it, runs the tests, checks its own
// environment for the real key, and says it is done.
func cliScript(saw *string) func(fakemodel.AgentTurn) fakemodel.AgentStep {
	return func(tt fakemodel.AgentTurn) fakemodel.AgentStep {
		if os.Getenv("DEBUG_AGENT") != "" {
			println("TURN", time.Now().Format("15:04:05.000"), tt.Turn, tt.Result)
		}
		switch tt.Turn {
		case 0:
			return fakemodel.AgentStep{Read: "calc/calc.go"}
		case 1:
			return fakemodel.AgentStep{Edit: &fakemodel.EditStep{Path: "calc/calc.go", Old: "\treturn a - b", New: "\treturn a + b"}}
		case 2:
			return fakemodel.AgentStep{Run: "go test ./..."}
		case 3:
			return fakemodel.AgentStep{Run: "env | grep -c -e " + realKey + " -e ghs_ || true; env | grep -c " + agentcli.DummyKey}
		case 4:
			*saw = tt.Result
		}
		return fakemodel.AgentStep{Text: "Done: Add now adds."}
	}
}

// Label → the CLI (in the sandbox, through the proxy) fixes the bug → Warden
// tests, reviews with the configured model and opens the PR; the real key
// reaches the model only through the proxy; the spend is recorded.
func TestAgentCLIOpensPR(t *testing.T) {
	for i, preset := range []string{"claude-code", "codex"} {
		t.Run(preset, func(t *testing.T) {
			w := newWorld(t, cliRepo(""), withCLI(t, preset))
			w.Model.Script(happyScript)
			var saw string
			w.Model.Agent(cliScript(&saw))
			obs := w.observe()
			n := 80 + i
			w.Label(n, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice")
			rec := w.OutcomeOf(n, 180*time.Second)
			if rec.Outcome != outcome.Completed || rec.PR == 0 || rec.GoalStatus != "achieved" {
				t.Fatalf("record %+v\n%s\n%s", rec, w.CommentWith(n, "<!-- warden:outcome"), tail(w.Bot.Logs(), 3000))
			}
			pr := w.Pull()
			if got := readBranch(t, w.Bare, pr.Head, "calc/calc.go"); !strings.Contains(got, "return a + b") {
				t.Fatalf("branch lacks the CLI's fix:\n%s", got)
			}
			if !regexp.MustCompile(`(?m)^0\n1$`).MatchString(saw) {
				t.Fatalf("the CLI's environment: real key or token lines, dummy key lines = %q", saw)
			}
			agentCalls := w.Model.RequestsFor("agent")
			if len(agentCalls) < 5 {
				t.Fatalf("%d CLI calls reached the model", len(agentCalls))
			}
			for _, r := range w.Model.Requests() {
				if r.Key != realKey {
					t.Fatalf("the model saw key %q on a %s call, want the real key added by Warden", r.Key, r.Stage)
				}
			}
			if len(w.Model.RequestsFor("review")) != 1 || len(w.Model.RequestsFor("plan")) != 1 {
				t.Fatalf("plan and review did not run with the configured model")
			}
			if rec.SpentUSD <= 0 || rec.BudgetUSD != 1 || rec.CostUSD <= 0 {
				t.Fatalf("spend not recorded: %+v", rec)
			}
			if status := w.CommentWith(n, "<!-- warden:status -->"); !strings.Contains(status, "model spend $") {
				t.Fatalf("status comment lacks the spend:\n%s", status)
			}
			w.Eventually(10*time.Second, func() bool { return obs.has("agent_step", repo+"#"+itoa(n), "Implement") }, "no agent_step in bot observe")
			if m := metricsText(t, w.Bot.URL()); !strings.Contains(m, `warden_model_spend_usd_total{installation="4242",repo="acme/calc"}`) {
				t.Fatalf("/metrics lacks the spend:\n%s", m)
			}
		})
	}
}

// The model stops answering mid-stream: the status comment shows the CLI's
// last step, the stall watchdog stops the CLI, the stage is retried, and
// the task still completes.
func TestAgentCLIHungStreamTripsStallWatchdog(t *testing.T) {
	w := newWorld(t, cliRepo("timeouts: {stall: 8s, heartbeat: 2s}\n"), withCLI(t, "claude-code"))
	w.Model.Script(happyScript)
	var mu sync.Mutex
	hung := false
	w.Model.Agent(func(tt fakemodel.AgentTurn) fakemodel.AgentStep {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case tt.Turn == 1 && !hung:
			hung = true
			return fakemodel.AgentStep{Hang: 5 * time.Minute}
		case tt.Turn == 0:
			return fakemodel.AgentStep{Read: "calc/calc.go"}
		case tt.Turn == 1:
			return fakemodel.AgentStep{Edit: &fakemodel.EditStep{Path: "calc/calc.go", Old: "\treturn a - b", New: "\treturn a + b"}}
		}
		return fakemodel.AgentStep{Text: "Done."}
	})
	w.Label(85, "Add returns the difference", "calc.Add is wrong.", "warden:maintenance", "alice")
	// While the stream hangs, the status comment shows the CLI's last step.
	var seen []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s := w.CommentWith(85, "<!-- warden:status -->")
		if len(seen) == 0 || seen[len(seen)-1] != s {
			seen = append(seen, s)
		}
		if strings.Contains(s, "agent: Read calc/calc.go") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the status comment never showed the CLI's steps; it read:\n%s\nagent calls: %d\n%s", strings.Join(seen, "\n----\n"), len(w.Model.RequestsFor("agent")), tail(w.Bot.Logs(), 8000))
		}
	}
	rec := w.OutcomeOf(85, 180*time.Second)
	logs := w.Bot.Logs()
	if !strings.Contains(logs, `"event":"stalled"`) || rec.Outcome != outcome.Completed {
		t.Fatalf("record %+v, stalled logged %v\n%s", rec, strings.Contains(logs, `"event":"stalled"`), tail(logs, 6000))
	}
}

// A CLI whose calls cost more than budget_usd is refused by the proxy and
// stopped: the attempt ends escalated/budget_exhausted with the spend shown.
// The budget holds one call's reserved maximum (about $0.56 for Claude
// Code's 32,000-token replies), so the first call runs and the second,
// after it cost more than the budget, is refused.
func TestAgentCLIBudgetExhaustionStops(t *testing.T) {
	for i, preset := range []string{"claude-code", "codex"} {
		t.Run(preset, func(t *testing.T) {
			w := newWorld(t, cliRepo("budget_usd: 0.90\n"), withCLI(t, preset))
			w.Model.Script(happyScript)
			w.Model.Agent(func(fakemodel.AgentTurn) fakemodel.AgentStep {
				return fakemodel.AgentStep{Run: "echo more", Tokens: 1_000_000}
			})
			n := 86 + i
			w.Label(n, "Add returns the difference", "calc.Add is wrong.", "warden:maintenance", "alice")
			rec := w.OutcomeOf(n, 120*time.Second)
			if rec.Outcome != outcome.Escalated || rec.FailureClass != outcome.BudgetExhausted || rec.SpentUSD < 1 || rec.BudgetUSD != 0.9 || rec.PR != 0 {
				t.Fatalf("record %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
			}
			if calls := len(w.Model.RequestsFor("agent")); calls != 1 {
				t.Fatalf("%d CLI calls reached the model after the budget was spent, want 1", calls)
			}
			if c := w.CommentWith(n, "<!-- warden:outcome"); !strings.Contains(c, "of $0.90") {
				t.Fatalf("outcome comment does not show spent / limit:\n%s", c)
			}
		})
	}
}

// /warden cancel while the CLI runs a long command: the CLI and the
// command it started are gone within seconds, nothing is pushed.
func TestAgentCLICancelKillsTree(t *testing.T) {
	w := newWorld(t, calcRepo(), withCLI(t, "codex"))
	w.Model.Script(happyScript)
	marker := "warden-e2e-cancel-" + itoa(os.Getpid())
	w.Model.Agent(func(tt fakemodel.AgentTurn) fakemodel.AgentStep {
		if tt.Turn == 0 {
			return fakemodel.AgentStep{Run: "(exec -a " + marker + " sleep 600) & exec -a " + marker + " sleep 600"}
		}
		return fakemodel.AgentStep{Text: "Done."}
	})
	w.Label(88, "Add returns the difference", "calc.Add is wrong.", "warden:maintenance", "alice")
	w.Eventually(60*time.Second, func() bool { return pgrepCount(marker) > 0 }, "the CLI's command never started")
	w.Comment(88, "/warden cancel", "alice")
	w.Eventually(10*time.Second, func() bool { return pgrepCount(marker) == 0 }, "the CLI's command outlived the cancel")
	rec := w.OutcomeOf(88, 30*time.Second)
	if rec.FailureClass != outcome.Canceled || len(w.GH.Pulls(repo)) != 0 {
		t.Fatalf("record %+v, %d PRs", rec, len(w.GH.Pulls(repo)))
	}
}

// cliRepo is the calc module with one fix attempt and extra configuration.
func cliRepo(extra string) map[string]string {
	return withConfig("test: go test ./...\nmax_fix_attempts: 1\n" + extra)
}

func pgrepCount(pattern string) int {
	out, _ := exec.Command("pgrep", "-f", pattern).Output()
	return len(strings.Fields(string(out)))
}

func readBranch(t *testing.T, bare, branch, path string) string {
	out, err := exec.Command("git", "-C", bare, "show", branch+":"+path).CombinedOutput()
	if err != nil {
		t.Fatalf("git show %s:%s: %v %s", branch, path, err, out)
	}
	return string(out)
}

func metricsText(t *testing.T, url string) string {
	resp, err := harness.GetOps(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func itoa(n int) string { return strconv.Itoa(n) }

// The exec agent has a budget too: a run it reports as costing more than
// budget_usd is charged to the task, and the next run is refused.
func TestExecAgentBudgetIsCharged(t *testing.T) {
	cmd := `if [ "$WARDEN_STAGE" = plan ]; then echo '{"decision":"implement","summary":"s","approach":"a","files":["calc/calc.go"],"total_cost_usd":2}'; else sed -i 's/a - b/a + b/' calc/calc.go; fi`
	w := newWorld(t, calcRepo(), func(env map[string]string) {
		env["WARDEN_AGENT"], env["WARDEN_AGENT_COMMAND"] = "exec", cmd
	})
	w.Label(89, "Add returns the difference", "calc.Add is wrong.", "warden:maintenance", "alice")
	rec := w.OutcomeOf(89, 60*time.Second)
	if rec.FailureClass != outcome.BudgetExhausted || rec.SpentUSD != 2 || rec.BudgetUSD != 1 || rec.PR != 0 {
		t.Fatalf("record %+v\n%s", rec, tail(w.Bot.Logs(), 3000))
	}
}
