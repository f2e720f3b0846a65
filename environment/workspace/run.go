package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/warden-bot/warden/sandbox"
)

// Command is a repository command (setup, test, security check) to run in a
// worktree.
type Command struct {
	// Tree is the worktree as Warden recorded it (Worktree.Tree).
	Tree      sandbox.Tree
	Kind      sandbox.Kind // Setup, Test (the default) or Security
	Line      string       // run with sh -c
	Timeout   time.Duration
	MaxOutput int // bytes kept (head and tail); default 64 KiB
	ExtraEnv  []string
	// Network is the repository's choice for test and security commands
	// (`network: true`); setup always has Egress.
	Network sandbox.Network
	// Egress narrows and reports what a command with network reaches
	// through the egress proxy (network.allow; every connection logged).
	Egress sandbox.EgressPolicy
	// Cache is the repository's dependency cache (Manager.CacheDir): Go's
	// module and build caches and npm's live there. The setup command fills
	// it, with the network on; every other command only reads it, offline.
	Cache  string
	Limits sandbox.Limits // zero: sandbox.DefaultLimits
	// Root is the repository's unpacked image (sandbox/image), empty for the
	// worker's own system; RootEnv its configured environment (PATH …),
	// which replaces the worker's.
	Root    string
	RootEnv []string
	// Report names a file the command writes in its private HOME (a test
	// reporter's, at "$HOME/<Report>"): read back into Result.Report before
	// HOME is removed, so the report never lands in the worktree.
	Report string
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
	// Cap names the caps the command hit ("" when none); a command that hit
	// one has failed, whatever its exit status, and its output says which.
	Cap string
	// Report is Command.Report's content (at most 16 MiB), nil when the
	// command wrote none.
	Report []byte
}

// allowedEnv is all a repository command inherits: enough for toolchains to
// find themselves and their caches offline; never Warden's settings, tokens
// or model keys.
var allowedEnv = []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "GOROOT", "CGO_ENABLED", "GONOSUMDB", "GOPRIVATE", "GOSUMDB"}

// quietEnv keeps toolchains from leaving build droppings in the worktree,
// which the diff guards would then count as the model's change (a repository
// without a .gitignore for __pycache__ is common).
var quietEnv = []string{"PYTHONDONTWRITEBYTECODE=1"}

func commandEnv(home string, extra []string) []string {
	env := append([]string{"HOME=" + home, "TMPDIR=" + home, "CI=true"}, quietEnv...)
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

// imageEnv is a command's environment in an image: the image's own (its
// PATH, language variables), never the worker's, plus HOME and TMPDIR.
func imageEnv(home string, image, extra []string) []string {
	env := append([]string{"HOME=" + home, "TMPDIR=" + home, "CI=true"}, quietEnv...)
	for _, e := range image {
		k, _, _ := strings.Cut(e, "=")
		if k != "HOME" && k != "TMPDIR" && k != "" && !strings.HasPrefix(k, "WARDEN_") {
			env = append(env, e)
		}
	}
	if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "PATH=") }) {
		env = append(env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	}
	return append(env, extra...)
}

// dropVar removes every KEY= entry of env.
func dropVar(env []string, key string) []string {
	return slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, key+"=") })
}

// Run runs c in the sandbox (package sandbox) with a scrubbed environment,
// killing every process it started on timeout or cancellation, and keeps a
// bounded output. The Go caches are visible read-only: a command can use
// what is cached but never plant a build result another run would trust.
func Run(ctx context.Context, c Command) Result {
	if c.MaxOutput <= 0 {
		c.MaxOutput = 64 << 10
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Minute
	}
	if c.Kind == "" {
		c.Kind = sandbox.Test
	}
	setup := c.Kind == sandbox.Setup
	home, err := os.MkdirTemp("", "warden-home-")
	if err != nil {
		return Result{Err: err, ExitCode: -1}
	}
	defer os.RemoveAll(home)
	out := &capped{max: c.MaxOutput}
	base := commandEnv(home, c.ExtraEnv)
	if c.Root != "" {
		base = imageEnv(home, c.RootEnv, c.ExtraEnv)
	}
	env := withVenv(append(base, cacheEnv(c.Cache, setup)...))
	var ro []string
	switch {
	case c.Root != "":
		// The image's go is not the worker's, and the helper that serves the
		// shared build cache is not in the image: a private cache only.
		env = append(dropVar(env, "GOCACHE"), "GOCACHE="+filepath.Join(home, ".cache", "go-build"))
		if !setup {
			ro = cachesIn(env)
		}
	case !setup:
		env, ro = settleGoCache(env, home)
		ro = append(ro, cachesIn(env)...)
	}
	if setup {
		if err := makeCache(c.Cache); err != nil {
			return Result{Err: err, ExitCode: -1}
		}
		c.Network = sandbox.Egress
	}
	sr := sandbox.Run(ctx, sandbox.Profile{
		Kind: c.Kind, Tree: c.Tree, Argv: []string{"sh", "-c", c.Line}, Env: env, Home: home, Root: c.Root,
		ReadOnly: ro, Cache: c.Cache, Network: c.Network, Egress: c.Egress, Limits: c.Limits,
		Timeout: c.Timeout, Stdout: out, Stderr: out,
	})
	r := Result{ExitCode: sr.ExitCode, TimedOut: sr.TimedOut, Canceled: sr.Canceled, Duration: sr.Duration, Err: sr.Err,
		Output: out.String(), Truncated: out.cut > 0, Cap: sr.Cap}
	if c.Report != "" {
		r.Report = readReport(home, c.Report)
	}
	if r.TimedOut {
		r.Output += fmt.Sprintf("\n[warden: killed after %s]\n", c.Timeout)
	}
	if r.Cap != "" {
		r.Output += "\n[warden: " + r.Cap + "]\n"
		if r.ExitCode == 0 {
			r.ExitCode = CapExit
		}
	}
	return r
}

// CapExit is the exit status of a command that exited 0 but hit a cap.
const CapExit = 125

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

// Isolation says how repository commands are isolated on this machine.
func Isolation() string { return sandbox.Describe() }

// readReport reads HOME's report file, which the command wrote and so may
// have made anything: only a regular file, never through a link, bounded.
func readReport(home, name string) []byte {
	if filepath.Base(name) != name {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(home, name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return nil
	}
	return b
}
