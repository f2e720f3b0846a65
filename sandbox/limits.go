package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
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
	// Disk is what the worktree may hold, in allocated bytes: looked at
	// while the command runs (watch.go), which is stopped once over, and
	// when it ends.
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

// The limiter is the helper (helper.go: the running binary, static in an
// image), started as `<exe> limitsArg KEY=VALUE… -- argv…`: it joins the
// command's control groups (cgroup=DIR, outside the sandbox, before
// bubblewrap starts) or sets the caps on itself (fsize=, nproc=, data=,
// inside the sandbox, where RLIMIT_NPROC counts the sandbox's own user
// namespace) and starts the forwarders (forward=PORT:SOCK, forward.go),
// then execs argv, which inherits the caps. It is Warden's own binary so
// that it needs nothing from the sandbox's file system.
const limitsArg = "__warden-sandbox-limits__"

func init() {
	if len(os.Args) > 1 && os.Args[1] == limitsArg {
		os.Exit(limitMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == forwardArg {
		os.Exit(forwardMain(os.Args[2:]))
	}
}

// prefix is the limiter's command line at path that sets the caps and
// starts the forwarders fw, before the command. Processes < 0 leaves the
// process count uncapped.
func (l Limits) prefix(path string, fw []Forward) []string {
	a := []string{path, limitsArg, "fsize=" + strconv.FormatInt(l.FileSize, 10), "nproc=" + strconv.Itoa(max(l.Processes, 0)),
		"data=" + strconv.FormatInt(l.Memory, 10)}
	for _, f := range fw {
		a = append(a, f.arg())
	}
	return append(a, "--")
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
	var fw []Forward
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		k, v, _ := strings.Cut(args[i], "=")
		if k == "cgroup" {
			groups = append(groups, v)
			continue
		}
		if k == "forward" {
			f, err := parseForward(v)
			if err != nil {
				return fail(err)
			}
			fw = append(fw, f)
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
	if err := startForwarders(fw); err != nil {
		return fail(err)
	}
	return fail(syscall.Exec(path, argv, env))
}
