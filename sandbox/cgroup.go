package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupRoot is where cgroup v1 hierarchies are mounted.
var cgroupRoot = "/sys/fs/cgroup"

// cgroup is one command's control groups, where the worker may make them
// (cgroup v1 pids and memory hierarchies it can write, as root usually
// can): the whole tree's processes and memory are capped there, and the
// kernel's counters say which cap was hit. RLIMIT_NPROC, the cap that works
// everywhere else, does not bind uid 0, so a worker running as root relies
// on this one. A nil cgroup does nothing.
type cgroup struct {
	pids, memory string // the group directories ("" when not made)
	lim          Limits
}

// newCgroup makes the command's groups, or returns nil when none can be
// made here.
func newCgroup(lim Limits) *cgroup {
	var id [6]byte
	_, _ = rand.Read(id[:])
	name := "warden-sandbox-" + hex.EncodeToString(id[:])
	cg := &cgroup{lim: lim}
	if d := makeGroup("pids", name); d != "" {
		if write(d, "pids.max", strconv.Itoa(lim.Processes)) == nil {
			cg.pids = d
		} else {
			_ = os.Remove(d)
		}
	}
	if d := makeGroup("memory", name); d != "" {
		if write(d, "memory.limit_in_bytes", strconv.FormatInt(lim.TreeMemory, 10)) == nil {
			cg.memory = d
		} else {
			_ = os.Remove(d)
		}
	}
	if cg.pids == "" && cg.memory == "" {
		return nil
	}
	return cg
}

// sweepGroups removes the groups a killed Warden left (it could not remove
// its own): empty ones older than a minute. A group in use cannot be
// removed, and a young one may be another worker's about to be joined.
func sweepGroups() {
	for _, c := range []string{"pids", "memory"} {
		own := ownGroup(c)
		if own == "" {
			continue
		}
		old, _ := filepath.Glob(filepath.Join(cgroupRoot, c, own, "warden-sandbox-*"))
		for _, d := range old {
			if fi, err := os.Stat(d); err == nil && time.Since(fi.ModTime()) > time.Minute {
				_ = os.Remove(d)
			}
		}
	}
}

// makeGroup creates name under this process's group of the v1 controller.
func makeGroup(controller, name string) string {
	own := ownGroup(controller)
	if own == "" {
		return ""
	}
	d := filepath.Join(cgroupRoot, controller, own, name)
	if err := os.Mkdir(d, 0o755); err != nil {
		return ""
	}
	return d
}

// ownGroup is this process's path in the v1 hierarchy of controller.
func ownGroup(controller string) string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.SplitN(l, ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == controller {
				if fi, err := os.Stat(filepath.Join(cgroupRoot, controller)); err == nil && fi.IsDir() {
					return filepath.Clean("/" + f[2])
				}
			}
		}
	}
	return ""
}

func write(dir, file, v string) error {
	return os.WriteFile(filepath.Join(dir, file), []byte(v), 0o644)
}

// dirs are the groups the command's first process joins.
func (cg *cgroup) dirs() []string {
	if cg == nil {
		return nil
	}
	var out []string
	for _, d := range []string{cg.pids, cg.memory} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// hits names the caps the kernel counted as hit.
func (cg *cgroup) hits() []string {
	if cg == nil {
		return nil
	}
	var out []string
	if cg.pids != "" && counter(cg.pids, "pids.events", "max") > 0 {
		out = append(out, fmt.Sprintf("process cap: %d processes and threads reached; a fork was refused", cg.lim.Processes))
	}
	if cg.memory != "" && counter(cg.memory, "memory.oom_control", "oom_kill") > 0 {
		out = append(out, fmt.Sprintf("memory cap: the command's processes reached %s together; the kernel killed one", bytesOf(cg.lim.TreeMemory)))
	}
	return out
}

// counter reads "key N" from a cgroup file.
func counter(dir, file, key string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == key {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// remove kills whatever is left in the groups and removes them.
func (cg *cgroup) remove() {
	for _, d := range cg.dirs() {
		// The kernel lets go of the exited processes within moments.
		for wait := time.Millisecond; wait < 2*time.Second; wait *= 2 {
			if os.Remove(d) == nil {
				break
			}
			if b, err := os.ReadFile(filepath.Join(d, "cgroup.procs")); err == nil {
				for _, p := range strings.Fields(string(b)) {
					if pid, err := strconv.Atoi(p); err == nil {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			}
			time.Sleep(wait)
		}
	}
}

// joinGroups moves this process into dirs (the limiter, before it execs
// bubblewrap).
func joinGroups(dirs []string) error {
	for _, d := range dirs {
		if err := write(d, "cgroup.procs", strconv.Itoa(os.Getpid())); err != nil {
			return fmt.Errorf("join %s: %w", d, err)
		}
	}
	return nil
}
