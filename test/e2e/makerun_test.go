package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/test/harness"
)

// `make run` is the first of the two commands: its script must reach
// `bin/bot serve` with no WARDEN_* variable set (it once died on an unset
// WARDEN_ADDR under `set -u`). A stub stands in for the binary.
func TestMakeRunScriptStartsTheBot(t *testing.T) {
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join(harness.Root(t), "scripts", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for path, body := range map[string]string{"scripts/run.sh": string(script), "bin/bot": "#!/bin/sh\necho \"bot $*\"\n"} {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", filepath.Join(dir, "scripts", "run.sh"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "bot serve") || !strings.Contains(string(out), "http://127.0.0.1:8080/healthz") ||
		!strings.Contains(string(out), "development webhook secret: dev-") {
		t.Fatalf("scripts/run.sh: %v\n%s", err, out)
	}
}
