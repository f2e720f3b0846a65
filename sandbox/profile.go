package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Kind is what an untrusted process is. It names the process in failures
// and decides the one thing that differs between kinds: only Setup may
// write the repository's dependency cache.
type Kind string

// The kinds of untrusted process Warden runs.
const (
	Setup     Kind = "setup"      // the repository's `setup:` command
	Test      Kind = "test"       // the repository's `test:` command
	Security  Kind = "security"   // the repository's `security:` command
	ExecAgent Kind = "exec agent" // the operator's agent command (WARDEN_AGENT=exec)
	AgentCLI  Kind = "agent CLI"  // Claude Code or Codex
)

// Profile is one untrusted process: every process that runs repository
// code, model-written code or an agent is started through Run with one.
//
// What a caller may choose is only what is here: the command, its
// environment, a network policy, extra read-only mounts, Warden's own
// sockets, a private HOME, a timeout and the caps. What it may not choose is
// fixed by Run for every kind alike: the read-only system, no Warden
// secret, the worktree as the one writable tree (with the repository's cache
// for Setup), its .git file and git directory read-only, the tree's .git
// checked against what Warden recorded before anything starts, and the caps.
type Profile struct {
	Kind Kind
	// Tree is the worktree, as Warden recorded it when it made it.
	Tree Tree
	Argv []string // the command; Argv[0] is looked up in the sandbox's PATH
	// Env is the whole environment; nothing is inherited. HOME and TMPDIR
	// are set to the private home unless Env sets them.
	Env     []string
	Network Network
	// Egress narrows and reports what a Network: Egress process reaches.
	Egress EgressPolicy
	// ReadOnly are extra directories bound read-only (caches, a toolchain,
	// the agent's own program).
	ReadOnly []string
	// Cache is the repository's dependency cache: writable for Setup,
	// read-only for every other kind.
	Cache string
	// Sockets are Warden's own Unix sockets bound in (the metering proxy),
	// so a command without network reaches exactly them.
	Sockets []string
	// Forward are loopback ports inside the sandbox that Warden's helper
	// connects to Warden's Unix sockets (bound in): a CLI that speaks only
	// TCP reaches the metering proxy so, with nothing from the image.
	Forward []Forward
	// Root is the repository's unpacked image (package sandbox/image): its
	// /usr, /bin, /sbin, /lib*, /etc and /opt replace the worker's, read-only;
	// the worktree, HOME, /proc, /dev and /tmp are as without it. Empty: the
	// worker's own system.
	Root    string
	Home    string        // private HOME; a fresh temporary directory when empty, removed after
	Timeout time.Duration // default 10 minutes
	Limits  Limits        // zero fields take DefaultLimits
	Stdin   io.Reader
	Stdout  io.Writer // nil discards
	Stderr  io.Writer // nil discards
}

// Run runs p in the sandbox and waits for it. On timeout or when ctx ends,
// every process the command started dies. A tree whose .git is not what
// Warden recorded is refused (ErrTreeChanged) before anything starts.
func Run(ctx context.Context, p Profile) Result {
	if err := p.check(); err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	lim := p.Limits.orDefaults()
	s := spec{
		argv: p.Argv, dir: p.Tree.Dir, env: p.Env, home: p.Home, timeout: p.Timeout,
		stdin: p.Stdin, writable: []string{p.Tree.Dir}, sockets: append([]string(nil), p.Sockets...), forward: p.Forward, tmpSize: lim.Tmp, root: p.Root,
	}
	hints := &hintWriter{}
	s.stdout, s.stderr = tee(p.Stdout, hints), tee(p.Stderr, hints)
	if p.Stdout == p.Stderr {
		s.stderr = s.stdout // one writer stays one: exec copies it in one goroutine
	}
	s.readOnly = append(s.readOnly, p.ReadOnly...)
	if p.Tree.GitDir != "" {
		// git works in the tree, read-only: its .git file and the
		// repository it leads to, both as Warden recorded them.
		s.readOnly = append(s.readOnly, p.Tree.Common)
		s.protect = append(s.protect, filepath.Join(p.Tree.Dir, ".git"))
	}
	if p.Cache != "" {
		if p.Kind == Setup {
			s.writable = append(s.writable, p.Cache)
		} else if fi, err := os.Stat(p.Cache); err == nil && fi.IsDir() { // none yet: nothing to read
			s.readOnly = append(s.readOnly, p.Cache)
		}
	}
	for _, f := range p.Forward {
		s.sockets = append(s.sockets, f.Socket)
	}
	p.Network.apply(&s, p.Egress)
	r := run(ctx, s, lim)
	if r.Err == nil {
		r.Cap = lim.hit(p.Tree.Dir, r, hints)
	}
	return r
}

// check refuses a profile that would weaken the sandbox or whose tree is
// not what Warden recorded.
func (p Profile) check() error {
	switch p.Kind {
	case Setup, Test, Security, ExecAgent, AgentCLI:
	default:
		return fmt.Errorf("sandbox: unknown kind of process %q", p.Kind)
	}
	if len(p.Argv) == 0 {
		return fmt.Errorf("sandbox: no command")
	}
	if err := p.Tree.Verify(); err != nil {
		return err
	}
	// No extra mount may be the root, the kernel's views, or a directory
	// holding the worktree or its repository (Warden's data directory: every
	// mirror, the parked trees, and often the key file beside it).
	held := nonEmpty(p.Tree.Dir, p.Tree.Common)
	mounts := append(append(nonEmpty(p.Cache, p.Home, p.Root), p.ReadOnly...), p.Sockets...)
	for _, f := range p.Forward {
		if f.Port <= 0 || f.Port > 65535 || f.Port == egressPort {
			return fmt.Errorf("sandbox: loopback port %d may not be forwarded", f.Port)
		}
		mounts = append(mounts, f.Socket)
	}
	for _, d := range mounts {
		c := filepath.Clean(d)
		if !filepath.IsAbs(d) || c == "/" || underAny(c+"/", []string{"/proc/", "/sys/", "/dev/"}) || holds(c, held) {
			return fmt.Errorf("sandbox: %q may not be mounted", d)
		}
	}
	return nil
}

// Describe says how commands are isolated here, for the start-up log and /ui.
func Describe() string {
	err := Available()
	switch {
	case err == nil:
		return "bubblewrap: own PID, network, IPC and user namespaces; read-only system; only the worktree and a private HOME writable, its .git read-only; network only through Warden's egress proxy, public addresses only; capped file size, processes, memory and disk"
	case Unsafe():
		return "NONE: " + UnsafeEnv + "=1 runs repository commands without isolation (" + err.Error() + ")"
	}
	return "unavailable: repository commands are refused (" + err.Error() + ")"
}

// holds reports whether d is or contains one of paths.
func holds(d string, paths []string) bool {
	for _, p := range paths {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// privateHome makes the private HOME when the profile names none.
func privateHome() (string, func(), error) {
	home, err := os.MkdirTemp("", "warden-home-")
	if err != nil {
		return "", nil, fmt.Errorf("private home: %w", err)
	}
	return home, func() { _ = os.RemoveAll(home) }, nil
}
