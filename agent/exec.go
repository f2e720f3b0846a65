package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
)

// ExecAgent runs an external agent command (WARDEN_AGENT=exec) in the
// worktree with the prompt on stdin and WARDEN_STAGE set, inside the sandbox
// (package sandbox): it cannot read Warden's environment, key file, .env,
// data directory or other repositories' mirrors, cannot see Warden's
// processes, and can write only the worktree and a private HOME.
type ExecAgent struct {
	Command string
	Timeout time.Duration
	// Network is the command's network policy: the operator chose the
	// command and it usually has to reach its own model (sandbox.Egress:
	// through the egress proxy, public addresses only, never the worker's
	// loopback); what the sandbox still guarantees is no Warden secret and
	// only the worktree writable.
	Network sandbox.Network
	// ReadOnly are extra directories the command sees read-only (its
	// install directory, say). The directory of the command's program is
	// added when it lies outside the system directories.
	ReadOnly []string
}

// NewExec builds an exec agent.
func NewExec(command string) *ExecAgent {
	return &ExecAgent{Command: command, Timeout: 10 * time.Minute}
}

// execEnv: what an external agent inherits. Never Warden's settings, the
// GitHub token or the model key; never HOME, TMPDIR or cache paths, which
// name host directories the sandbox hides (it gives a private HOME instead).
var execEnv = []string{"PATH", "LANG", "LC_ALL", "TERM", "GOFLAGS", "GOPROXY", "GOROOT", "GOTOOLCHAIN"}

const maxExecOutput = 1 << 20

// Run runs the command for one stage and returns its stdout. Every process
// it started dies when it exits, times out or ctx ends.
func (e *ExecAgent) Run(ctx context.Context, stage string, tree sandbox.Tree, prompt string) (string, error) {
	if fi, err := os.Stat(tree.Dir); err != nil || !fi.IsDir() {
		return "", &outcome.Error{Class: outcome.Deterministic, Stage: stage, Msg: "the agent command could not start: no worktree " + tree.Dir, Err: err}
	}
	env := []string{}
	for _, k := range execEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "WARDEN_STAGE="+stage)
	var out bytes.Buffer
	errb := &tailBuffer{n: maxStderrTail}
	sr := sandbox.Run(ctx, sandbox.Profile{
		Kind: sandbox.ExecAgent, Tree: tree, Argv: []string{"sh", "-c", e.Command}, Env: env,
		ReadOnly: e.readOnly(), Network: e.Network,
		Timeout: e.Timeout, Stdin: strings.NewReader(prompt), Stdout: &limited{&out}, Stderr: errb,
	})
	switch {
	case sr.Err != nil && errors.Is(sr.Err, sandbox.ErrUnavailable):
		return "", &outcome.Error{Class: outcome.Deterministic, Stage: stage, Msg: sr.Err.Error()}
	case sr.Err != nil:
		return "", &outcome.Error{Class: outcome.Deterministic, Stage: stage, Msg: "the agent command could not start", Err: sr.Err}
	case sr.Canceled:
		return "", context.Cause(ctx)
	case sr.TimedOut:
		return "", &outcome.Error{Class: outcome.Transient, Stage: stage, Msg: fmt.Sprintf("the agent command ran longer than %s", e.Timeout)}
	case sr.ExitCode != 0 || sr.Cap != "":
		return out.String(), &outcome.Error{Class: outcome.Transient, Stage: stage, Msg: fmt.Sprintf("the agent command failed: exit status %d", sr.ExitCode) + capNote(sr.Cap), Output: errb.String()}
	}
	return out.String(), nil
}

// readOnly is what the command sees read-only besides the system and the
// worktree's git directory (which the sandbox binds from the tree):
// e.ReadOnly, and the directory of the command's program when that is not
// already visible (an agent installed under /srv or a home directory).
func (e *ExecAgent) readOnly() []string {
	ro := append([]string(nil), e.ReadOnly...)
	if d := programDir(e.Command); d != "" {
		ro = append(ro, d)
	}
	return ro
}

// programDir is the directory of the command line's first word, resolved in
// PATH, when it lies outside the directories the sandbox shows anyway.
func programDir(command string) string {
	f := strings.Fields(command)
	if len(f) == 0 {
		return ""
	}
	p, err := exec.LookPath(f[0])
	if err != nil || !filepath.IsAbs(p) {
		return ""
	}
	d := filepath.Dir(p)
	for _, r := range []string{"/usr/", "/bin/", "/sbin/"} {
		if strings.HasPrefix(d+"/", r) {
			return ""
		}
	}
	// Never Warden's own directory or one holding a .env: a program kept
	// beside Warden's settings would show them.
	if cwd, err := os.Getwd(); err == nil && (cwd == d || strings.HasPrefix(cwd, d+"/")) {
		return ""
	}
	if _, err := os.Stat(filepath.Join(d, ".env")); err == nil {
		return ""
	}
	return d
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

// capNote names the caps a command hit, for a failure's message.
func capNote(c string) string {
	if c == "" {
		return ""
	}
	return " (" + c + ")"
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
