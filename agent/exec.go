package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// ExecAgent runs an external agent command (WARDEN_AGENT=exec) in the
// worktree with the prompt on stdin and WARDEN_STAGE set.
type ExecAgent struct {
	Command string
	Env     []string // added to the scrubbed environment
	Timeout time.Duration
}

// NewExec builds an exec agent.
func NewExec(command string, env []string) *ExecAgent {
	return &ExecAgent{Command: command, Env: env, Timeout: 10 * time.Minute}
}

// execEnv: what an external agent inherits. Never Warden's settings, the
// GitHub token or the model key unless the operator names them in Env.
var execEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TERM", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOROOT", "GOTOOLCHAIN"}

const maxExecOutput = 1 << 20

// Run runs the command for one stage and returns its stdout.
func (e *ExecAgent) Run(ctx context.Context, stage, dir, prompt string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	cmd := exec.Command("sh", "-c", e.Command)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(prompt)
	for _, k := range execEnv {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Env = append(append(cmd.Env, "WARDEN_STAGE="+stage), e.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A process the agent left running must not hold Run by its stdout.
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	errb := &tailBuffer{n: maxStderrTail}
	cmd.Stdout, cmd.Stderr = &limited{&out}, errb
	if err := cmd.Start(); err != nil {
		return "", &outcome.Error{Class: outcome.Deterministic, Stage: stage, Msg: "the agent command could not start", Err: err}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
		// Nothing the agent started outlives it: the worktree is judged next.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, exec.ErrWaitDelay) {
			err = nil
		}
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		if c := context.Cause(ctx); c != nil && ctx.Err() == context.Canceled {
			return "", c
		}
		return "", &outcome.Error{Class: outcome.Transient, Stage: stage, Msg: fmt.Sprintf("the agent command ran longer than %s", e.Timeout)}
	}
	if err != nil {
		return out.String(), &outcome.Error{Class: outcome.Transient, Stage: stage, Msg: "the agent command failed: " + err.Error(), Output: errb.String()}
	}
	return out.String(), nil
}

type limited struct{ b *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := maxExecOutput - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// maxStderrTail is how much of the end of a failing agent's stderr its error quotes.
const maxStderrTail = 2000

// tailBuffer keeps the last n bytes written: the reason a command failed is
// at the end of its stderr, however much it wrote before.
type tailBuffer struct {
	n int
	b []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.n {
		t.b = append(t.b[:0], t.b[len(t.b)-t.n:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	b := t.b
	if len(b) > t.n {
		b = b[len(b)-t.n:]
	}
	return strings.ToValidUTF8(string(b), "")
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
