package sandbox

import (
	"strings"
	"testing"
	"time"
)

// A command that writes past the disk cap and goes on running is stopped
// while it runs, and the stage failure names the cap.
func TestDiskCapHoldsWhileRunning(t *testing.T) {
	begin := time.Now()
	r, out := try(t, Profile{Argv: []string{"sh", "-c", "head -c 12000000 /dev/zero > fill.bin; sleep 30; echo STILL-RUNNING"},
		Tree: Tree{Dir: t.TempDir()}, Limits: Limits{Disk: 4 << 20}, Timeout: time.Minute})
	if strings.Contains(out, "STILL-RUNNING") || time.Since(begin) > 20*time.Second {
		t.Fatalf("ran %s over the cap (cap %q):\n%s", time.Since(begin), r.Cap, out)
	}
	if r.ExitCode == 0 || r.Canceled || r.TimedOut || !strings.Contains(r.Cap, "while the command runs: it was stopped") {
		t.Fatalf("exit %d canceled %v timed out %v cap %q", r.ExitCode, r.Canceled, r.TimedOut, r.Cap)
	}
}
