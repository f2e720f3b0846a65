package redteam

// Threat-model row "The worker's disk and memory": a repository command
// cannot exhaust the worker (issue #26 item 6), and a parked tree carries
// nothing of its last task, its modes included (item 7).

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/guards"
	"github.com/warden-bot/warden/sandbox"
)

// A test command leaves a 1 GiB file in the worktree: judging the change
// reads its size, not its bytes, so it costs Warden no more memory than a
// small file (the old code read it whole, twice), git never hashes it into
// the mirror, and the guards refuse it by its size.
func TestHugeFileCostsWardenNothing(t *testing.T) {
	m, cloneURL := gitManager(t, 0)
	w := gitPrepare(t, m, cloneURL, "huge")
	ctx := context.Background()
	res := workspace.Run(ctx, workspace.Command{Tree: w.Tree(), Line: "head -c 1073741824 /dev/zero > huge.bin && echo small > small.txt", Timeout: 2 * time.Minute})
	if res.ExitCode != 0 {
		t.Fatalf("the command: %+v", res)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	changes, err := w.Changes(ctx)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	var huge bool
	for _, c := range changes {
		if c.Path == "huge.bin" && c.Size == 1<<30 {
			huge = true
		}
	}
	if !huge {
		t.Fatalf("the guards were not told the file's size: %+v", changes)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Fatalf("judging a 1 GiB file allocated %d MiB in Warden", alloc>>20)
	}
	if _, err := w.ReadFile("huge.bin"); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("a model read of the huge file: %v", err)
	}
	if err := guards.CheckDiff(changes, guards.Limits{}); err == nil || !strings.Contains(err.Error(), "huge.bin") {
		t.Fatalf("the guards let the huge file through: %v", err)
	}
	// Nor did git hash it into the mirror.
	var mirror int64
	_ = filepath.WalkDir(filepath.Join(m.Dir(), "mirrors"), func(p string, d fs.DirEntry, err error) error {
		if fi, ierr := d.Info(); err == nil && ierr == nil && d.Type().IsRegular() {
			mirror += fi.Size()
		}
		return nil
	})
	if mirror > 16<<20 {
		t.Fatalf("the mirror grew to %d MiB", mirror>>20)
	}
}

// Each cap a command hits is enforced and named in what the stage reports;
// a command that hit one has failed even when it exited 0.
func TestCommandCapsAreEnforcedAndNamed(t *testing.T) {
	cases := []struct {
		name, line string
		lim        sandbox.Limits
		want       string
	}{
		{"file size", "head -c 5000000 /dev/zero > big.bin; true", sandbox.Limits{FileSize: 1 << 20}, "file size cap: big.bin reached 1 MiB"},
		{"disk", "for i in 1 2 3 4 5; do head -c 1000000 /dev/urandom > f$i.bin; done", sandbox.Limits{Disk: 3 << 20}, "disk cap: the worktree holds"},
		{"memory", "python3 -c 'b = bytearray(600 << 20)'", sandbox.Limits{Memory: 256 << 20}, "memory cap: 256 MiB per process"},
		{"tmp", "head -c 40000000 /dev/zero > /tmp/fill; echo rc=$?", sandbox.Limits{Tmp: 8 << 20}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, cloneURL := gitManager(t, 0)
			w := gitPrepare(t, m, cloneURL, "caps")
			res := workspace.Run(context.Background(), workspace.Command{Tree: w.Tree(), Line: c.line, Limits: c.lim, Timeout: time.Minute})
			if c.want == "" { // /tmp is a bounded tmpfs: the write fails, nothing is named
				if !strings.Contains(res.Output, "No space left") {
					t.Fatalf("a sandbox's /tmp took 40 MB past its 8 MiB:\n%s", res.Output)
				}
				return
			}
			if res.ExitCode == 0 || !strings.Contains(res.Cap, c.want) || !strings.Contains(res.Output, "[warden: "+c.want) {
				t.Fatalf("exit %d cap %q, want %q named\n%s", res.ExitCode, res.Cap, c.want, res.Output)
			}
		})
	}
}

// A task that chmods its tree (the root 0777, a file setuid and world
// writable, a directory closed) leaves the next task a tree whose modes
// come from the index: files 0644 or 0755, directories 0755.
func TestParkedTreeModesAreNormalised(t *testing.T) {
	m, cloneURL := gitManager(t, 1)
	ctx := context.Background()
	w := gitPrepare(t, m, cloneURL, "modes")
	res := workspace.Run(ctx, workspace.Command{Tree: w.Tree(), Line: "chmod 0777 . && chmod 4777 calc.go && chmod 0777 go.mod && mkdir -p d && chmod 0700 d", Timeout: time.Minute})
	if res.ExitCode != 0 {
		t.Fatalf("%+v", res)
	}
	if err := m.Remove(ctx, w); err != nil {
		t.Fatal(err)
	}
	next := gitPrepare(t, m, cloneURL, "next")
	if _, err := os.Stat(filepath.Join(m.Dir(), "parked", "acme", "calc", "0")); err == nil {
		t.Fatal("the tree was not taken from the park")
	}
	_ = filepath.WalkDir(next.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || filepath.Base(p) == ".git" {
			return nil
		}
		fi, _ := d.Info()
		want := fs.FileMode(0o644)
		if d.IsDir() {
			want = 0o755
		}
		if got := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
		return nil
	})
}
