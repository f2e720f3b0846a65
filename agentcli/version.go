package agentcli

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Resolve finds the preset's executable (bin, or its name on PATH) and
// checks that it is the version Warden is tested with.
func Resolve(p Preset, bin string) (string, error) {
	if bin == "" {
		bin = p.Bin
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("WARDEN_AGENT=%s needs %s %s: not found (%v); install it with scripts/agent-clis.sh or set WARDEN_AGENT_BIN", p.Name, p.Bin, p.Version, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("WARDEN_AGENT=%s: %s --version failed: %v: %s", p.Name, path, err, strings.TrimSpace(string(out)))
	}
	if !hasVersion(string(out), p.Version) {
		return "", fmt.Errorf("WARDEN_AGENT=%s is tested with %s %s, but %s is %q; install %s@%s (scripts/agent-clis.sh) or point WARDEN_AGENT_BIN at it",
			p.Name, p.Bin, p.Version, path, strings.TrimSpace(string(out)), p.Bin, p.Version)
	}
	return path, nil
}

// hasVersion reports whether out names exactly version as a word.
func hasVersion(out, version string) bool {
	for _, f := range strings.Fields(out) {
		if strings.Trim(f, "v(),") == version {
			return true
		}
	}
	return false
}

func itoa(n int) string { return fmt.Sprint(n) }
