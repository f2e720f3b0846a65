package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/agent/agentcli"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/world"
)

// cliFiles is the calc module (the test command's time is subtracted anyway).
func cliFiles() map[string]string {
	return world.WithConfig("test: go test ./calc/\nmax_fix_attempts: 1\n")
}

func cliOpt(b *testing.B, preset string) world.Option {
	p := agentcli.Presets[preset]
	dir := os.Getenv("WARDEN_AGENT_CLIS")
	if dir == "" {
		dir = "/var/cache/warden/agent-clis"
	}
	bin := filepath.Join(dir, "node_modules", ".bin", p.Bin)
	if _, _, err := agentcli.Resolve(p, bin); err != nil {
		b.Fatalf("%v (run scripts/agent-clis.sh)", err)
	}
	return func(env map[string]string) {
		env["WARDEN_AGENT"], env["WARDEN_AGENT_BIN"], env["WARDEN_LLM_MODEL"] = preset, bin, p.Model
		env["WARDEN_LLM_API"] = "anthropic"
		env["WARDEN_LLM_BASE_URL"] = strings.TrimSuffix(env["WARDEN_LLM_BASE_URL"], "/v1")
		env["WARDEN_LOG_LEVEL"] = "info"
	}
}

// aroundAgent is Warden's time on both sides of the agent's work on one
// task: label → agent start, and agent end → attempt finished, less the
// test command's own time. The agent is the CLI (start and exit as logged)
// or the llm agent's implement call (the fake model's receive and reply).
type aroundAgent struct{ before, after, agent, test time.Duration }

func measureAround(b *testing.B, w *world.World, cli bool) aroundAgent {
	n := nextIssue()
	t0 := label(w, n)
	end := finished(w, 5*time.Minute, "completed", n)[n].Time
	var a aroundAgent
	var start, stop time.Time
	for _, e := range entries(w, n) {
		switch {
		case e.Msg == "command finished":
			a.test += time.Duration(e.DurationMS) * time.Millisecond
		case cli && e.Msg == "agent CLI started":
			start = e.Time
		case cli && e.Msg == "agent CLI exited":
			stop = e.Time
		}
	}
	if !cli {
		for _, r := range w.Model.RequestsFor("implement") {
			start, stop = r.Received, r.Replied
		}
	}
	if start.IsZero() || stop.IsZero() {
		b.Fatalf("issue %d: agent start/stop not found\n%s", n, world.Tail(w.Bot.Logs(), 3000))
	}
	a.before, a.agent, a.after = start.Sub(t0), stop.Sub(start), end.Sub(stop)-a.test
	return a
}

// BenchmarkAgentCLIOverhead: the same calc task, once with Claude Code and
// once with the llm agent, instant fake model, in the same run.
func BenchmarkAgentCLIOverhead(b *testing.B) {
	cw := world.New(b, cliFiles(), cliOpt(b, "claude-code"))
	cw.Model.Script(world.HappyScript)
	cw.Model.Agent(func(tt fakemodel.AgentTurn) fakemodel.AgentStep {
		switch tt.Turn {
		case 0:
			return fakemodel.AgentStep{Read: "calc/calc.go"}
		case 1:
			return fakemodel.AgentStep{Edit: &fakemodel.EditStep{Path: "calc/calc.go", Old: "\treturn a - b", New: "\treturn a + b"}}
		}
		return fakemodel.AgentStep{Text: "Done."}
	})
	lw := world.New(b, cliFiles(), concurrencyOpt(2))
	lw.Model.Script(world.HappyScript)
	var c, l aroundAgent
	for b.Loop() {
		x, y := measureAround(b, cw, true), measureAround(b, lw, false)
		c.before += x.before
		c.after += x.after
		c.agent += x.agent
		l.before += y.before
		l.after += y.after
	}
	per := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(b.N) }
	b.ReportMetric(per(c.before), "cli-before-ms")
	b.ReportMetric(per(c.after), "cli-after-ms")
	b.ReportMetric(per(c.agent), "cli-run-ms")
	b.ReportMetric(per(l.before), "llm-before-ms")
	b.ReportMetric(per(l.after), "llm-after-ms")
	b.ReportMetric(0, "ns/op")
}
