package agentcli

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/agent/meter"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/test/fakemodel"
)

// cliBin finds a CLI installed by scripts/agent-clis.sh; missing fails.
func cliBin(t *testing.T, p Preset) string {
	dir := os.Getenv("WARDEN_AGENT_CLIS")
	if dir == "" {
		dir = "/var/cache/warden/agent-clis"
	}
	bin, _, err := Resolve(p, filepath.Join(dir, "node_modules", ".bin", p.Bin))
	if err != nil {
		t.Fatalf("%v (make test runs scripts/agent-clis.sh)", err)
	}
	return bin
}

type rig struct {
	fake   *fakemodel.Server
	runner *Runner
	dir    string
	ledger *meter.Ledger
}

func newRig(t *testing.T, preset string) *rig {
	p := Presets[preset]
	fake := fakemodel.New()
	t.Cleanup(fake.Close)
	up := fake.URL()
	if p.API == "openai" {
		up += "/v1"
	}
	u, _ := url.Parse(up)
	mr := miniredis.RunT(t)
	l := &meter.Ledger{RDB: redis.NewClient(&redis.Options{Addr: mr.Addr()})}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	return &rig{fake: fake, dir: dir, ledger: l, runner: &Runner{Preset: p, Bin: cliBin(t, p), Upstream: u, APIKey: "REAL-KEY-" + preset, Ledger: l}}
}

func (r *rig) run(ctx context.Context, scope meter.Scope, events *[]string) (RunResult, error) {
	var mu sync.Mutex
	return r.runner.Run(ctx, RunOptions{Tree: sandbox.Tree{Dir: r.dir}, Prompt: "change hello to goodbye", Scope: scope, OnEvent: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if events != nil && s != "" {
			*events = append(*events, s)
		}
	}})
}

var presets = []string{"claude-code", "codex"}

func TestCLIEditsInSandboxWithDummyKeyOnly(t *testing.T) {
	for _, name := range presets {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, name)
			// A listener on a host address: the CLI's command must not reach it.
			ln, err := net.Listen("tcp", "0.0.0.0:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			accepted := make(chan struct{}, 1)
			go func() {
				if c, err := ln.Accept(); err == nil {
					c.Close()
					accepted <- struct{}{}
				}
			}()
			port := ln.Addr().(*net.TCPAddr).Port
			var netResult string
			r.fake.Agent(func(tt fakemodel.AgentTurn) fakemodel.AgentStep {
				switch tt.Turn {
				case 0:
					return fakemodel.AgentStep{Read: "a.txt"}
				case 1:
					return fakemodel.AgentStep{Edit: &fakemodel.EditStep{Path: "a.txt", Old: "hello", New: "goodbye"}}
				case 2:
					return fakemodel.AgentStep{Run: "cat a.txt > seen.txt; env > env.txt"}
				case 3:
					return fakemodel.AgentStep{Run: "socat -u OPEN:/dev/null TCP:" + hostIP(t) + ":" + itoa(port) + ",connect-timeout=2 && echo REACHED || echo NETWORK-FAILED"}
				case 4:
					netResult = tt.Result
				}
				return fakemodel.AgentStep{Text: "Done."}
			})
			var events []string
			res, err := r.run(context.Background(), meter.Scope{Repo: "o/r", Issue: 1, TaskLimit: 1}, &events)
			if err != nil {
				var oe *outcome.Error
				if errors.As(err, &oe) {
					t.Fatalf("%v\n%s", err, oe.Output)
				}
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(r.dir, "seen.txt")); string(b) != "goodbye\n" {
				t.Fatalf("seen.txt %q; events %q", b, events)
			}
			env, _ := os.ReadFile(filepath.Join(r.dir, "env.txt"))
			if strings.Contains(string(env), "REAL-KEY") || !strings.Contains(string(env), DummyKey) {
				t.Fatalf("the CLI's environment:\n%s", env)
			}
			if !strings.Contains(netResult, "NETWORK-FAILED") {
				t.Fatalf("the network attempt was not reported failed: %q", netResult)
			}
			select {
			case <-accepted:
				t.Fatal("a connection from the sandbox was accepted")
			default:
			}
			for _, q := range r.fake.Requests() {
				if q.Key != "REAL-KEY-"+name {
					t.Fatalf("the model saw key %q, want the real key through the proxy", q.Key)
				}
			}
			if res.Usage.CostUSD <= 0 || res.Events < 5 || len(events) < 3 {
				t.Fatalf("usage %+v events %d steps %q", res.Usage, res.Events, events)
			}
			sp, _ := r.ledger.Spent(context.Background(), meter.Scope{Repo: "o/r", Issue: 1})
			if sp.Task < res.Usage.CostUSD*0.999 {
				t.Fatalf("ledger %v, run cost %v", sp.Task, res.Usage.CostUSD)
			}
			t.Logf("steps: %q", events)
		})
	}
}

func TestBudgetExhaustionStopsCLI(t *testing.T) {
	for _, name := range presets {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, name)
			// Every call bills a million input tokens: the second is refused.
			r.fake.Agent(func(tt fakemodel.AgentTurn) fakemodel.AgentStep {
				return fakemodel.AgentStep{Run: "echo again", Tokens: 1_000_000}
			})
			// The run returning at all is the stop: the CLI would call again forever.
			_, err := r.run(context.Background(), meter.Scope{Repo: "o/r", Issue: 2, TaskLimit: 1}, nil)
			if outcome.ClassOf(err) != outcome.BudgetExhausted {
				t.Fatalf("err %v, want the budget exhausted", err)
			}
			if n := len(r.fake.RequestsFor("agent")); n != 1 {
				t.Fatalf("%d calls reached the model, want 1", n)
			}
		})
	}
}

func TestCancelKillsCLIAndChildren(t *testing.T) {
	for _, name := range presets {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, name)
			marker := "warden-child-" + name + "-" + itoa(os.Getpid())
			started := make(chan struct{}, 1)
			r.fake.Agent(func(tt fakemodel.AgentTurn) fakemodel.AgentStep {
				if tt.Turn == 0 {
					select {
					case started <- struct{}{}:
					default:
					}
					return fakemodel.AgentStep{Run: "(exec -a " + marker + " sleep 300) & exec -a " + marker + " sleep 300"}
				}
				return fakemodel.AgentStep{Text: "Done."}
			})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { _, err := r.run(ctx, meter.Scope{Repo: "o/r", Issue: 3}, nil); errc <- err }()
			<-started
			waitFor(t, func() bool { return pgrep(marker) > 0 })
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("the cancelled run answered %v", err)
			}
			waitFor(t, func() bool { return pgrep(marker) == 0 })
		})
	}
}

func pgrep(pattern string) int {
	out, _ := exec.Command("pgrep", "-f", pattern).Output()
	return len(strings.Fields(string(out)))
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 30s")
}

// hostIP is an address of this machine other than loopback.
func hostIP(t *testing.T) string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return "10.255.255.1"
}
