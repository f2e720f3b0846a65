package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Command is a repository command (test, security check) to run in a worktree.
type Command struct {
	Dir       string
	Line      string // run with sh -c
	Timeout   time.Duration
	MaxOutput int // bytes kept (head and tail); default 64 KiB
	ExtraEnv  []string
}

// Result is how a command ended.
type Result struct {
	ExitCode  int
	TimedOut  bool
	Canceled  bool
	Output    string // stdout and stderr, interleaved
	Truncated bool
	Duration  time.Duration
	Err       error // the command could not start
}

// allowedEnv is all a repository command inherits: enough for toolchains to
// find themselves and their caches offline; never Warden's settings, tokens
// or model keys.
var allowedEnv = []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "GOROOT", "CGO_ENABLED", "GONOSUMDB", "GOPRIVATE", "GOSUMDB"}

func commandEnv(home string, extra []string) []string {
	env := []string{"HOME=" + home, "TMPDIR=" + home, "CI=true"}
	for _, k := range allowedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	// Go keeps its build cache under HOME by default; keep using the real one
	// so a test run does not rebuild the standard library every time.
	if _, ok := os.LookupEnv("GOCACHE"); !ok {
		if dir, err := os.UserCacheDir(); err == nil {
			env = append(env, "GOCACHE="+filepath.Join(dir, "go-build"))
		}
	}
	return append(env, extra...)
}

// Run runs c in its own process group with a scrubbed environment, killing
// the whole group on timeout or cancellation, and keeps a bounded output.
func Run(ctx context.Context, c Command) Result {
	if c.MaxOutput <= 0 {
		c.MaxOutput = 64 << 10
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Minute
	}
	home, err := os.MkdirTemp("", "warden-home-")
	if err != nil {
		return Result{Err: err, ExitCode: -1}
	}
	defer os.RemoveAll(home)
	runCtx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	argv := sandbox(c.Dir, home, c.Line)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = commandEnv(home, c.ExtraEnv)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &capped{max: c.MaxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{Err: fmt.Errorf("start %q: %w", c.Line, err), ExitCode: -1}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-runCtx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the whole group: grandchildren too
		werr = <-done
	}
	r := Result{Duration: time.Since(start), Output: out.String(), Truncated: out.cut > 0, ExitCode: cmd.ProcessState.ExitCode()}
	switch {
	case ctx.Err() != nil:
		r.Canceled = true
	case runCtx.Err() != nil:
		r.TimedOut = true
		r.Output += fmt.Sprintf("\n[warden: killed after %s]\n", c.Timeout)
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) && !r.TimedOut && !r.Canceled {
		r.Err = werr
	}
	return r
}

// capped keeps the first and last halves of max bytes.
type capped struct {
	mu   sync.Mutex
	max  int
	head bytes.Buffer
	tail []byte
	cut  int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if room := c.max/2 - c.head.Len(); room > 0 {
		k := min(room, len(p))
		c.head.Write(p[:k])
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - c.max/2; over > 0 {
		c.cut += over
		c.tail = append([]byte(nil), c.tail[over:]...)
	}
	return n, nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut == 0 {
		return c.head.String() + string(c.tail)
	}
	return fmt.Sprintf("%s\n[… %d bytes cut …]\n%s", c.head.String(), c.cut, c.tail)
}

var (
	bwrapOnce sync.Once
	bwrapOK   bool
)

// Isolation says how repository commands are isolated on this machine.
func Isolation() string {
	if useBwrap() {
		return "bubblewrap: no network, read-only root, only the worktree writable"
	}
	return "process group and scrubbed environment (install bubblewrap for network and file-system isolation)"
}

func useBwrap() bool {
	bwrapOnce.Do(func() {
		path, err := exec.LookPath("bwrap")
		if err != nil {
			return
		}
		bwrapOK = exec.Command(path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "true").Run() == nil
	})
	return bwrapOK
}

// sandbox wraps the command line in bubblewrap where it works.
func sandbox(dir, home, line string) []string {
	if !useBwrap() {
		return []string{"sh", "-c", line}
	}
	argv := []string{"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--bind", dir, dir, "--bind", home, home, "--unshare-net", "--die-with-parent", "--new-session"}
	if cache, err := os.UserCacheDir(); err == nil {
		if _, err := os.Stat(cache); err == nil && !strings.HasPrefix(dir, cache) {
			argv = append(argv, "--bind", cache, cache)
		}
	}
	return append(argv, "sh", "-c", line)
}
