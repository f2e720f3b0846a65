// Package sandbox runs every untrusted process (a repository's setup, test or
// security command, the exec agent, an agent CLI) in one profile (Run,
// Profile) under bubblewrap: its own PID, network, IPC, UTS, user and cgroup
// namespaces, a read-only view of the system's programs and libraries and
// nothing else of the host, a private HOME, the worktree as the only
// writable tree with its .git file and git directory read-only, and caps on
// file size, processes, memory and disk. Warden's processes, environment,
// key file, .env, data directory and other repositories' mirrors are out of
// reach. A caller chooses a network policy and extra read-only mounts,
// never to leave a protection out.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// spec is one command line as Run assembles it from a Profile: nothing
// outside this package builds one.
type spec struct {
	argv     []string
	dir      string
	env      []string
	writable []string // bound read-write (the worktree, Setup's cache)
	readOnly []string // bound read-only
	protect  []string // read-only inside a writable tree (its .git), bound last
	sockets  []string
	forward  []Forward     // loopback ports the helper connects to sockets
	bwrap    []string      // more bubblewrap arguments (the network policy)
	root     string        // an unpacked image replacing the system directories; "" for the worker's
	egress   *EgressPolicy // set: the command's way out is the egress proxy
	home     string
	tmpSize  int64
	timeout  time.Duration
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
}

// Result is how a command ended.
type Result struct {
	ExitCode int
	TimedOut bool
	Canceled bool
	Duration time.Duration
	Err      error // the command could not run (ErrUnavailable, ErrTreeChanged, a start failure)
	Isolated bool  // false only when WARDEN_UNSAFE_NO_SANDBOX let it run bare
	// Cap names each cap the command hit ("" when none): a file at the
	// file-size cap, the worktree over the disk cap, the process or memory
	// cap as a control group counted it or, when the command failed saying
	// so, as its output tells.
	Cap string
	// kernel are the caps the control groups counted as hit.
	kernel []string
}

// run runs s and waits for it. On timeout or when ctx ends, every process
// the command started dies: bubblewrap's PID namespace ends with its init,
// and bwrap's own process group is killed.
func run(ctx context.Context, s spec, lim Limits) Result {
	if s.timeout <= 0 {
		s.timeout = 10 * time.Minute
	}
	isolated := true
	if err := Available(); err != nil {
		if !Unsafe() {
			return Result{ExitCode: -1, Err: err}
		}
		isolated = false
	}
	if s.home == "" {
		home, done, err := privateHome()
		if err != nil {
			return Result{ExitCode: -1, Err: err}
		}
		defer done()
		s.home = home
	}
	s.env = withDefaults(s.env, "HOME="+s.home, "TMPDIR="+s.home)
	if isolated && s.egress != nil {
		var stop func()
		var err error
		if s, stop, err = withEgress(ctx, s); err != nil {
			return Result{ExitCode: -1, Err: err}
		}
		defer stop()
	}
	var cg *cgroup
	if isolated {
		cg = newCgroup(lim)
		defer cg.remove()
	}
	argv, err := commandLine(s, lim, isolated)
	if err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	if exe, _ := limiter(); cg != nil {
		argv = append(joiner(exe, cg.dirs()), argv...)
	}
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	var disk *diskWatch
	if s.dir != "" {
		disk = watchDisk(watchCtx, s.dir, lim.Disk, stop)
	}
	r := start(watchCtx, s, argv)
	stop()
	r.Isolated = isolated
	r.kernel = cg.hits()
	if c := disk.stopped(lim.Disk); c != "" && ctx.Err() == nil {
		r.Canceled, r.TimedOut = false, false
		r.kernel = append(r.kernel, c)
	}
	return r
}

// commandLine is what Warden starts: bubblewrap around the limiter around
// the command, or (the operator's opt-out) the limiter around the command.
func commandLine(s spec, lim Limits, isolated bool) ([]string, error) {
	if !isolated {
		exe, err := limiter()
		if err != nil {
			return nil, err
		}
		// Bare, the process count would be the host user's: not capped.
		lim.Processes = -1
		return append(lim.prefix(exe, s.forward), s.argv...), nil
	}
	exe, err := helperFor(s.root)
	if err != nil {
		return nil, err
	}
	return bwrapArgv(s, exe, append(lim.prefix(limiterPath, s.forward), s.argv...)), nil
}

func start(ctx context.Context, s spec, argv []string) Result {
	runCtx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.dir
	cmd.Env = s.env
	cmd.Stdin = s.stdin
	cmd.Stdout, cmd.Stderr = orDiscard(s.stdout), orDiscard(s.stderr)
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
