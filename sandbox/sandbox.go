// Package sandbox runs an untrusted command (a repository's test, security or
// setup command, an agent CLI) under bubblewrap: its own PID, network, IPC,
// UTS, user and cgroup namespaces, a read-only view of the system's programs
// and libraries and nothing else of the host, a private HOME, and only the
// directories the caller names writable. Warden's processes, environment, key
// file, .env, data directory and other repositories' mirrors are out of reach.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Spec is one command to run in the sandbox. Paths are absolute and appear
// at the same path inside.
type Spec struct {
	Argv []string // the command; Argv[0] is looked up in the sandbox's PATH
	Dir  string   // working directory; usually also in Writable
	// Env is the whole environment; nothing is inherited. HOME and TMPDIR
	// are set to the private home unless Env sets them.
	Env      []string
	Writable []string // bound read-write (the worktree)
	ReadOnly []string // extra read-only binds (caches, a toolchain)
	// Sockets are unix socket paths bound into the sandbox (e.g. a metering
	// proxy), so a command without network can still reach exactly them.
	Sockets []string
	// Network gives the command its own network namespace whose only way
	// out is Warden's egress proxy (opt-in only; see Egress).
	Network bool
	Egress  Egress        // the proxy's policy when Network is set
	Home    string        // private HOME; a fresh temporary directory when empty, removed after
	Timeout time.Duration // default 10 minutes
	Stdin   io.Reader
	Stdout  io.Writer // nil discards
	Stderr  io.Writer // nil discards
}

// Result is how a command ended.
type Result struct {
	ExitCode int
	TimedOut bool
	Canceled bool
	Duration time.Duration
	Err      error // the command could not run (ErrUnavailable, a start failure)
	Isolated bool  // false only when WARDEN_UNSAFE_NO_SANDBOX let it run bare
}

// Run runs s and waits for it. On timeout or when ctx ends, every process
// the command started dies: bubblewrap's PID namespace ends with its init,
// and bwrap's own process group is killed.
func Run(ctx context.Context, s Spec) Result {
	if s.Timeout <= 0 {
		s.Timeout = 10 * time.Minute
	}
	isolated := true
	if err := Available(); err != nil {
		if !Unsafe() {
			return Result{ExitCode: -1, Err: err}
		}
		isolated = false
	}
	if s.Home == "" {
		home, err := os.MkdirTemp("", "warden-home-")
		if err != nil {
			return Result{ExitCode: -1, Err: fmt.Errorf("private home: %w", err)}
		}
		defer os.RemoveAll(home)
		s.Home = home
	}
	s.Env = withDefaults(s.Env, "HOME="+s.Home, "TMPDIR="+s.Home)
	argv := s.Argv
	if isolated {
		if s.Network {
			var stop func()
			var err error
			if s, stop, err = withEgress(ctx, s); err != nil {
				return Result{ExitCode: -1, Err: err}
			}
			defer stop()
		}
		argv = bwrapArgv(s)
	}
	r := start(ctx, s, argv)
	r.Isolated = isolated
	return r
}

func start(ctx context.Context, s Spec, argv []string) Result {
	runCtx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	cmd.Stdin = s.Stdin
	cmd.Stdout, cmd.Stderr = orDiscard(s.Stdout), orDiscard(s.Stderr)
	// Its own group so the kill reaches bwrap (or, unsandboxed, the shell)
	// and everything in that group; Pdeathsig so a crash of Warden ends it too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// A process that escaped the group could hold the output pipes open.
	cmd.WaitDelay = 2 * time.Second
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1, Err: fmt.Errorf("start %s: %w", argv[0], err)}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-runCtx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		werr = <-done
	}
	r := Result{Duration: time.Since(begin), ExitCode: cmd.ProcessState.ExitCode()}
	switch {
	case ctx.Err() != nil:
		r.Canceled = true
	case runCtx.Err() != nil:
		r.TimedOut = true
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) && !errors.Is(werr, exec.ErrWaitDelay) && !r.TimedOut && !r.Canceled {
		r.Err = werr
	}
	return r
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// withDefaults appends each KEY=value of defs whose key env does not set.
func withDefaults(env []string, defs ...string) []string {
	out := append([]string(nil), env...)
	for _, d := range defs {
		key := d[:len(d)-len(afterEq(d))]
		found := false
		for _, e := range env {
			if len(e) >= len(key) && e[:len(key)] == key {
				found = true
				break
			}
		}
		if !found {
			out = append(out, d)
		}
	}
	return out
}

// afterEq returns what follows the first '=' of s.
func afterEq(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return s[i+1:]
		}
	}
	return ""
}
