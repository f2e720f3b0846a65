package sandbox

// Naming the cap a finished command hit, from what it left and printed.

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

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
	if total > l.Disk && !named(caps, "disk cap") {
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
