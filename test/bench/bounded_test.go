package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/test/gitfixture"
)

// boundedScenarios are the test commands of BenchmarkBoundedCommands: the
// baseline writes a small file and a line; the hostile one writes 1 GiB to
// a file and 200 MB to stdout (issue #26 build 8).
var boundedScenarios = map[string]string{
	"baseline": "echo small > small.txt; echo done",
	"hostile":  "head -c 1073741824 /dev/zero > huge.bin; head -c 209715200 /dev/zero | tr '\\0' x",
}

// BenchmarkBoundedCommands is Warden's peak memory (the high-water mark of
// its resident set) while a test command runs and its change is judged,
// for the hostile command against the baseline, each in a fresh process
// so that neither inherits the other's peak. The ratio is the figure: a
// 1 GiB file and 200 MB of output should cost Warden about what a small
// file and a line do.
func BenchmarkBoundedCommands(b *testing.B) {
	peak := map[string]float64{}
	for range b.N {
		for _, name := range []string{"baseline", "hostile"} {
			kb, err := boundedPeak(name)
			if err != nil {
				b.Fatal(err)
			}
			peak[name] = max(peak[name], kb)
		}
	}
	b.ReportMetric(peak["baseline"]/1024, "baseline-peak-MiB")
	b.ReportMetric(peak["hostile"]/1024, "hostile-peak-MiB")
	b.ReportMetric(peak["hostile"]/peak["baseline"], "hostile/baseline")
}

var peakLine = regexp.MustCompile(`BOUNDED_PEAK_KB=(\d+)`)

// boundedPeak runs TestBoundedPeakHelper in a child process for scenario
// and returns its peak resident set in KiB.
func boundedPeak(scenario string) (float64, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestBoundedPeakHelper$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "WARDEN_BOUNDED_SCENARIO="+scenario)
	out, err := cmd.CombinedOutput()
	m := peakLine.FindSubmatch(out)
	if err != nil || m == nil {
		return 0, fmt.Errorf("%s: %v\n%s", scenario, err, out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// TestBoundedPeakHelper is BenchmarkBoundedCommands' child: with
// WARDEN_BOUNDED_SCENARIO set it prepares a worktree, runs the scenario's
// command as the test stage does, judges the change, and prints its own
// peak resident set. Without it, it checks that the scenarios exist.
func TestBoundedPeakHelper(t *testing.T) {
	scenario := os.Getenv("WARDEN_BOUNDED_SCENARIO")
	if scenario == "" {
		if len(boundedScenarios) != 2 {
			t.Fatal("the scenarios are the baseline and the hostile command")
		}
		return
	}
	_, url := gitfixture.NewRepo(t, map[string]string{"go.mod": "module x\n", "a.go": "package x\n"})
	m, err := workspace.New(t.TempDir(), workspace.Options{GitTimeout: 5 * time.Minute, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := m.Prepare(ctx, workspace.PrepareRequest{Repo: "bench/bounded", CloneURL: url, BaseBranch: "main", Branch: "warden/1-b", TaskKey: "b"})
	if err != nil {
		t.Fatal(err)
	}
	res := workspace.Run(ctx, workspace.Command{Tree: w.Tree(), Line: boundedScenarios[scenario], Timeout: 5 * time.Minute})
	if res.Err != nil || res.ExitCode != 0 {
		t.Fatalf("%s: %+v", scenario, res)
	}
	if _, err := w.Changes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Diff(ctx); err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			fmt.Printf("BOUNDED_PEAK_KB=%s\n", f[1])
			return
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
}
