package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Limits caps one untrusted process tree. Zero fields take DefaultLimits.
type Limits struct {
	// FileSize is the largest file any process may write (RLIMIT_FSIZE):
	// a write past it fails and the writer gets SIGXFSZ.
	FileSize int64
	// Processes is how many processes and threads may run at once in the
	// sandbox (RLIMIT_NPROC, set inside its own user namespace, so that it
	// counts the sandbox's processes only).
	Processes int
	// Memory is each process's data memory (RLIMIT_DATA: heap and private
	// writable mappings).
	Memory int64
	// TreeMemory is the memory of all the command's processes together,
	// where the worker can make a memory control group (cgroup.go).
	TreeMemory int64
	// Disk is what the worktree may hold, in allocated bytes, when the
	// command ends.
	Disk int64
	// Tmp is the size of the sandbox's /tmp, which lives in memory.
	Tmp int64
}

// DefaultLimits are the caps of every sandboxed command: generous for a
// build or a test suite, far below what would take the worker down.
func DefaultLimits() Limits {
	return Limits{FileSize: 2 << 30, Processes: 2048, Memory: 8 << 30, TreeMemory: 12 << 30, Disk: 8 << 30, Tmp: 1 << 30}
}

func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	if l.FileSize > 0 {
		d.FileSize = l.FileSize
	}
	if l.Processes > 0 {
		d.Processes = l.Processes
	}
	if l.Memory > 0 {
		d.Memory = l.Memory
	}
	if l.TreeMemory > 0 {
		d.TreeMemory = l.TreeMemory
	}
	if l.Disk > 0 {
		d.Disk = l.Disk
	}
	if l.Tmp > 0 {
		d.Tmp = l.Tmp
	}
	return d
}

// The limiter is the running binary itself, started as
// `<exe> limitsArg KEY=VALUE… -- argv…`: it joins the command's control
// groups (cgroup=DIR, outside the sandbox, before bubblewrap starts) or sets
// the caps on itself (fsize=, nproc=, data=, inside the sandbox, where
// RLIMIT_NPROC counts the sandbox's own user namespace), then execs argv,
// which inherits them. It is the running binary (the bot, or a test binary)
// so that it needs nothing from the sandbox's file system.
const limitsArg = "__warden-sandbox-limits__"

func init() {
	if len(os.Args) > 1 && os.Args[1] == limitsArg {
		os.Exit(limitMain(os.Args[2:]))
	}
}

var (
	exeOnce sync.Once
	exePath string
	exeErr  error
)

// limiter is the path of the running binary.
func limiter() (string, error) {
	exeOnce.Do(func() {
		exePath, exeErr = os.Executable()
		if exeErr == nil {
			exePath, exeErr = filepath.EvalSymlinks(exePath)
		}
		if exeErr != nil {
			exeErr = fmt.Errorf("sandbox: the limiter (this program) cannot be found: %w", exeErr)
		}
	})
	return exePath, exeErr
}

// prefix is the limiter's command line at path that sets the caps, before
// the command. Processes < 0 leaves the process count uncapped.
func (l Limits) prefix(path string) []string {
	return []string{path, limitsArg, "fsize=" + strconv.FormatInt(l.FileSize, 10), "nproc=" + strconv.Itoa(max(l.Processes, 0)),
		"data=" + strconv.FormatInt(l.Memory, 10), "--"}
}

// joiner is the limiter's command line that joins the control groups dirs,
// before bubblewrap; nil when there are none.
func joiner(exe string, dirs []string) []string {
	if len(dirs) == 0 {
		return nil
	}
	a := []string{exe, limitsArg}
	for _, d := range dirs {
		a = append(a, "cgroup="+d)
	}
	return append(a, "--")
}

// limitMain is the limiter: it joins the groups or sets the caps, then
// execs the command.
func limitMain(args []string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "warden sandbox limiter:", err)
		return 127
	}
	type rlimit struct {
		res int
		v   uint64
	}
	caps := []rlimit{{unix.RLIMIT_CORE, 0}}
	var groups []string
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		k, v, _ := strings.Cut(args[i], "=")
		if k == "cgroup" {
			groups = append(groups, v)
			continue
		}
		res, ok := map[string]int{"fsize": unix.RLIMIT_FSIZE, "nproc": unix.RLIMIT_NPROC, "data": unix.RLIMIT_DATA}[k]
		n, err := strconv.ParseUint(v, 10, 64)
		if !ok || err != nil {
			return fail(fmt.Errorf("bad argument %q", args[i]))
		}
		if n > 0 {
			caps = append(caps, rlimit{res, n})
		}
	}
	if i+1 >= len(args) {
		return fail(fmt.Errorf("usage: %s KEY=VALUE… -- COMMAND…", limitsArg))
	}
	if err := joinGroups(groups); err != nil {
		return fail(err)
	}
	if len(groups) > 0 {
		caps = nil // outside the sandbox: the caps are set inside
	}
	argv := args[i+1:]
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fail(err)
	}
	env := os.Environ()
	// Nothing may need new memory once the data cap is set: the Go runtime
	// crashes, rather than fails, when it cannot grow its heap (a GC cycle
	// under a small cap segfaulted the limiter), so none runs from here on.
	debug.SetGCPercent(-1)
	for _, c := range caps {
		var cur unix.Rlimit
		if err := unix.Getrlimit(c.res, &cur); err != nil {
			return fail(err)
		}
		v := min(c.v, cur.Max) // a hard limit can only go down
		if err := unix.Setrlimit(c.res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fail(fmt.Errorf("setrlimit %d: %w", c.res, err))
		}
	}
	return fail(syscall.Exec(path, argv, env))
}

// hit names the caps a finished command hit: disk and file size from the
// worktree's sizes (stat only, never its bytes), the file-size signal from
// the exit status, and the process and memory caps from what a failed
// command printed.
func (l Limits) hit(dir string, r Result, h *hintWriter) string {
	caps := append([]string(nil), r.kernel...)
	total, big := usage(dir, l.FileSize)
	switch {
	case big != "":
		caps = append(caps, fmt.Sprintf("file size cap: %s reached %s", big, bytesOf(l.FileSize)))
	case r.ExitCode == 128+int(syscall.SIGXFSZ):
		caps = append(caps, fmt.Sprintf("file size cap: a process was stopped writing past %s", bytesOf(l.FileSize)))
	}
	if total > l.Disk {
		caps = append(caps, fmt.Sprintf("disk cap: the worktree holds %s, over %s", bytesOf(total), bytesOf(l.Disk)))
	}
	if r.ExitCode != 0 && !r.TimedOut && !r.Canceled {
		procs, mem := h.seen()
		if procs != "" && !named(caps, "process cap") {
			caps = append(caps, fmt.Sprintf("process cap: %d processes and threads, probably hit (the output says %q)", l.Processes, procs))
		}
		if mem != "" && !named(caps, "memory cap") {
			caps = append(caps, fmt.Sprintf("memory cap: %s per process, probably hit (the output says %q)", bytesOf(l.Memory), mem))
		}
	}
	return strings.Join(caps, "; ")
}

func named(caps []string, prefix string) bool {
	for _, c := range caps {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

// usage adds up the allocated size of everything under dir and names the
// first regular file at or over fileCap. Directories a command made
// unreadable are opened up (the tree is Warden's) so nothing hides.
func usage(dir string, fileCap int64) (total int64, big string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d == nil {
			return nil
		}
		fi, ierr := d.Info()
		if ierr != nil {
			return nil
		}
		if d.IsDir() && fi.Mode().Perm()&0o700 != 0o700 {
			_ = os.Chmod(p, fi.Mode().Perm()|0o700)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		}
		if big == "" && fi.Mode().IsRegular() && fi.Size() >= fileCap {
			if rel, rerr := filepath.Rel(dir, p); rerr == nil {
				big = rel
			}
		}
		return nil
	})
	return total, big
}

func bytesOf(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// What a process prints when a process or memory cap refused it.
var (
	procHints = []string{"Resource temporarily unavailable", "Cannot fork", "can't fork", "failed to create new OS thread"}
	memHints  = []string{"Cannot allocate memory", "out of memory", "std::bad_alloc", "MemoryError"}
)

// hintWindow is the longest hint, which a match may straddle two writes by.
const hintWindow = 64

// hintWriter watches a command's output for the hints, in constant memory.
type hintWriter struct {
	mu         sync.Mutex
	tail       []byte
	procs, mem string
}

func (h *hintWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.procs != "" && h.mem != "" {
		return len(p), nil
	}
	joint := append(append(make([]byte, 0, len(h.tail)+hintWindow), h.tail...), p[:min(len(p), hintWindow)]...)
	h.scan(joint)
	h.scan(p)
	if len(p) >= hintWindow {
		h.tail = append(h.tail[:0], p[len(p)-hintWindow:]...)
	} else {
		h.tail = append(h.tail, p...)
		if over := len(h.tail) - hintWindow; over > 0 {
			h.tail = append(h.tail[:0], h.tail[over:]...)
		}
	}
	return len(p), nil
}

func (h *hintWriter) scan(b []byte) {
	for _, s := range procHints {
		if h.procs == "" && bytes.Contains(b, []byte(s)) {
			h.procs = s
		}
	}
	for _, s := range memHints {
		if h.mem == "" && bytes.Contains(b, []byte(s)) {
			h.mem = s
		}
	}
}

func (h *hintWriter) seen() (procs, mem string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.procs, h.mem
}

// tee writes to w (nil discards) and to the hint watcher.
func tee(w io.Writer, h *hintWriter) io.Writer {
	if w == nil {
		return h
	}
	return io.MultiWriter(w, h)
}
