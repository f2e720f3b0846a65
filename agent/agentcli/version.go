package agentcli

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Resolve finds the preset's executable (bin, or its name on PATH) and
// checks its version against the pinned one. The pinned version runs
// silently; a newer release of the same major version runs with a warning
// (the operator updated the CLI, which must not take Warden down); an older
// one or another major version is refused, since its flags or event stream
// may differ from what Warden parses.
func Resolve(p Preset, bin string) (path, warning string, err error) {
	if bin == "" {
		bin = p.Bin
	}
	path, err = exec.LookPath(bin)
	if err != nil {
		return "", "", fmt.Errorf("WARDEN_AGENT=%s needs %s %s: not found (%v); install it with scripts/agent-clis.sh or set WARDEN_AGENT_BIN", p.Name, p.Bin, p.Version, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return "", "", fmt.Errorf("WARDEN_AGENT=%s: %s --version failed: %v: %s", p.Name, path, err, strings.TrimSpace(string(out)))
	}
	got := strings.TrimSpace(string(out))
	switch compareToPinned(got, p.Version) {
	case 0:
		return path, "", nil
	case 1:
		return path, fmt.Sprintf("WARDEN_AGENT=%s is tested with %s %s; %s is newer (%q) and runs untested", p.Name, p.Bin, p.Version, path, got), nil
	}
	return "", "", fmt.Errorf("WARDEN_AGENT=%s is tested with %s %s, but %s is %q; install %s@%s (scripts/agent-clis.sh) or point WARDEN_AGENT_BIN at it",
		p.Name, p.Bin, p.Version, path, got, p.Bin, p.Version)
}

// compareToPinned reads the first version-like word of out: 0 when it is
// pinned exactly, 1 when it is a newer release of the same major version,
// -1 otherwise (older, another major, or no version at all).
func compareToPinned(out, pinned string) int {
	want, ok := parseVersion(pinned)
	if !ok {
		return -1
	}
	for _, f := range strings.Fields(out) {
		got, ok := parseVersion(strings.Trim(f, "v(),"))
		if !ok {
			continue
		}
		if got[0] != want[0] {
			return -1
		}
		for i := 1; i < 3; i++ {
			if got[i] != want[i] {
				if got[i] > want[i] {
					return 1
				}
				return -1
			}
		}
		return 0
	}
	return -1
}

// parseVersion reads MAJOR.MINOR.PATCH; a pre-release or build suffix is
// not a release Warden compares against, so it does not parse.
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func itoa(n int) string { return fmt.Sprint(n) }
