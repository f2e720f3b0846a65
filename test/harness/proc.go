package harness

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// ProcKB reads the bot's "Vm…:  N kB" line of /proc/<pid>/status (VmRSS,
// VmHWM); -1 when it cannot be read.
func (b *Bot) ProcKB(field string) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", b.Pid()))
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb
		}
	}
	return -1
}

// Sourced is the environment `set -a; . FILE` produces in a POSIX shell:
// what an operator's shell makes of a .env file.
func Sourced(t testing.TB, path string) map[string]string {
	t.Helper()
	cmd := exec.Command("sh", "-c", `set -a; . "$1"; env -0`, "sh", path)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sourcing %s: %v", path, err)
	}
	env := map[string]string{}
	for kv := range strings.SplitSeq(string(out), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}
