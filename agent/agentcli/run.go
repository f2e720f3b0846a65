package agentcli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/agent/meter"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
)

// Runner runs one preset's CLI.
type Runner struct {
	Preset   Preset
	Bin      string   // the resolved, version-checked executable
	Upstream *url.URL // the real model endpoint
	APIKey   string   // the real key: only the proxy holds it
	Ledger   *meter.Ledger
	Prices   map[string]agent.Price
	Model    string
	MaxTurns int
	Client   *http.Client // the proxy's upstream transport; may be nil
	Log      *slog.Logger
}

// RunOptions is one run: the worktree, the prompt and what it is charged to.
type RunOptions struct {
	Tree   sandbox.Tree // the worktree as Warden recorded it
	Prompt string
	Scope  meter.Scope
	// OnEvent is told of every event the CLI streams, with its step name
	// ("" for events that are not a step).
	OnEvent func(step string)

	Model    string
	MaxTurns int
	Home     string
	base     string
}

// RunResult is what a run cost and how it ended.
type RunResult struct {
	Usage  agent.Usage
	Events int
}

// Run runs the CLI in the sandbox until it exits or ctx ends, and kills its
// whole process tree either way.
func (r *Runner) Run(ctx context.Context, o RunOptions) (RunResult, error) {
	cliRoot, err := installRoot(r.Bin)
	if err != nil {
		return RunResult{}, fmt.Errorf("locate %s: %w", r.Bin, err)
	}
	tmp, err := os.MkdirTemp("", "warden-agent-")
	if err != nil {
		return RunResult{}, fmt.Errorf("agent temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	o.Home = filepath.Join(tmp, "home")
	if err := os.MkdirAll(filepath.Join(o.Home, ".codex"), 0o700); err != nil {
		return RunResult{}, err
	}
	o.Model, o.MaxTurns = r.Model, r.MaxTurns
	if o.Model == "" {
		o.Model = r.Preset.Model
	}
	if o.MaxTurns <= 0 {
		o.MaxTurns = 50
	}
	port, err := freePort()
	if err != nil {
		return RunResult{}, err
	}
	o.base = "http://127.0.0.1:" + strconv.Itoa(port)

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex
	var res RunResult
	proxy := &meter.Proxy{Upstream: r.Upstream, API: r.Preset.API, APIKey: r.APIKey, Ledger: r.Ledger, Scope: o.Scope,
		Client: r.Client, Log: r.Log,
		Price:    func(model string, in, out int) float64 { return agent.CostOf(r.Prices, model, in, out) },
		OnRefuse: func(err error) { cancel(err) }, // the budget is spent: stop the agent now
		OnCall: func(u meter.Usage, usd float64) {
			mu.Lock()
			res.Usage = res.Usage.Add(agent.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: usd})
			mu.Unlock()
		}}
	sock := filepath.Join(tmp, "model.sock")
	stop, err := proxy.Serve(runCtx, sock)
	if err != nil {
		return RunResult{}, err
	}
	defer stop()

	env := append([]string{"HOME=" + o.Home, "PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
		"TMPDIR=/tmp", "GOCACHE=/tmp/go-build", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod"}, r.Preset.env(o, o.base)...)
	// The CLI speaks TCP: Warden's helper forwards the sandbox's loopback
	// port to the proxy's socket. The port is free on the host too, for the
	// unsandboxed opt-out.
	argv := append([]string{r.Bin}, r.Preset.args(o)...)
	log := r.log().With("agent", r.Preset.Name, "repo", o.Scope.Repo, "issue", o.Scope.Issue)
	log.Info("agent CLI started")
	start := time.Now()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		log.Info("agent CLI exited", "duration_ms", time.Since(start).Milliseconds(), "events", res.Events, "cost_usd", res.Usage.CostUSD)
	}()
	err = r.exec(runCtx, sandbox.Profile{Kind: sandbox.AgentCLI, Tree: o.Tree, Argv: argv, Env: env, ReadOnly: []string{cliRoot},
		Forward: []sandbox.Forward{{Port: port, Socket: sock}}, Home: o.Home, Timeout: timeLeft(ctx)}, &res, &mu, o.OnEvent)
	mu.Lock()
	defer mu.Unlock()
	if refused := proxy.Refused(); refused != nil {
		return res, withStage(refused)
	}
	if ctx.Err() != nil {
		return res, context.Cause(ctx)
	}
	return res, err
}

func (r *Runner) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

// timeLeft bounds the sandbox by ctx's deadline (the stage timeout).
func timeLeft(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), time.Second)
	}
	return 6 * time.Hour
}

// exec runs spec in the sandbox, reading its event stream as it comes;
// sandbox.Run kills the whole tree when runCtx ends.
func (r *Runner) exec(runCtx context.Context, p sandbox.Profile, res *RunResult, mu *sync.Mutex, onEvent func(string)) error {
	pr, pw := io.Pipe()
	errb := &tail{n: 4000}
	p.Stdout, p.Stderr = pw, errb
	read := make(chan struct{})
	go func() { r.read(pr, res, mu, onEvent); close(read) }()
	sr := sandbox.Run(runCtx, p)
	pw.Close()
	<-read
	switch {
	case sr.Err != nil && errors.Is(sr.Err, sandbox.ErrUnavailable):
		return &outcome.Error{Class: outcome.Deterministic, Stage: "implement", Msg: sr.Err.Error()}
	case sr.Err != nil:
		return &outcome.Error{Class: outcome.Deterministic, Stage: "implement", Msg: "the agent CLI could not start: " + sr.Err.Error()}
	case runCtx.Err() != nil:
		return context.Cause(runCtx)
	case sr.TimedOut:
		return &outcome.Error{Class: outcome.Transient, Stage: "implement", Msg: "the agent CLI ran out of time"}
	case sr.ExitCode != 0 || sr.Cap != "":
		msg := fmt.Sprintf("%s exited with status %d", r.Preset.Bin, sr.ExitCode)
		if sr.Cap != "" {
			msg += " (" + sr.Cap + ")"
		}
		return &outcome.Error{Class: outcome.Transient, Stage: "implement", Msg: msg, Output: errb.String()}
	}
	return nil
}

func (r *Runner) read(out io.Reader, res *RunResult, mu *sync.Mutex, onEvent func(string)) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	for sc.Scan() {
		step := r.Preset.step(sc.Bytes())
		mu.Lock()
		res.Events++
		mu.Unlock()
		if onEvent != nil {
			onEvent(step)
		}
	}
	_, _ = io.Copy(io.Discard, out) // a line over the limit: keep draining
}

func withStage(err error) error {
	var oe *outcome.Error
	if errors.As(err, &oe) && oe.Stage == "" {
		c := *oe
		c.Stage = "implement"
		return &c
	}
	return err
}

// tail keeps the last n bytes of stderr.
type tail struct {
	mu sync.Mutex
	n  int
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.n {
		t.b = append(t.b[:0], t.b[len(t.b)-t.n:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if len(b) > t.n {
		b = b[len(b)-t.n:]
	}
	return string(b)
}
