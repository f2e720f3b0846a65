package agent

import (
	"bytes"
	"context"
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
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{&out}, &limited{&errb}
	if err := cmd.Start(); err != nil {
		return "", &outcome.Error{Class: outcome.Deterministic, Stage: stage, Msg: "the agent command could not start", Err: err}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		if c := context.Cause(ctx); c != nil && ctx.Err() == context.Canceled {
			return "", c
		}
		return "", &outcome.Error{Class: outcome.Transient, Stage: stage, Msg: fmt.Sprintf("the agent command ran longer than %s", e.Timeout)}
	}
	if err != nil {
		tailErr := errb.String()
		if len(tailErr) > 2000 {
			tailErr = tailErr[len(tailErr)-2000:]
		}
		return out.String(), &outcome.Error{Class: outcome.Transient, Stage: stage, Msg: "the agent command failed: " + err.Error(), Output: tailErr}
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

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
