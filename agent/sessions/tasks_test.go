package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/config"
)

// A worker configured with an agent CLI that is missing or another version
// does not start (`bot serve` exits 2 on this error): it names
// WARDEN_AGENT_BIN and the pinned version.
func TestCheckCLIRefusesMissingOrOtherVersion(t *testing.T) {
	other := filepath.Join(t.TempDir(), "codex")
	if err := os.WriteFile(other, []byte("#!/bin/sh\necho 'codex-cli 0.1.0'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{filepath.Join(t.TempDir(), "missing"), other} {
		_, err := CheckCLI(&config.Config{Agent: "codex", AgentBin: bin, Role: "all"})
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Setting != "WARDEN_AGENT_BIN" || !strings.Contains(err.Error(), "0.169.0") {
			t.Fatalf("%s: %v", bin, err)
		}
	}
	if _, err := CheckCLI(&config.Config{Agent: "codex", AgentBin: other, Role: "web"}); err != nil {
		t.Fatalf("a web-only process runs no agent, yet: %v", err)
	}
	if _, err := CheckCLI(&config.Config{Agent: "llm"}); err != nil {
		t.Fatalf("the llm agent needs no CLI, yet: %v", err)
	}
}

// A newer release of the pinned major version starts, with a warning the
// process logs and shows on /ui.
func TestCheckCLIWarnsOnNewerSameMajor(t *testing.T) {
	newer := filepath.Join(t.TempDir(), "codex")
	if err := os.WriteFile(newer, []byte("#!/bin/sh\necho 'codex-cli 0.170.2'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	warning, err := CheckCLI(&config.Config{Agent: "codex", AgentBin: newer, Role: "all"})
	if err != nil || !strings.Contains(warning, "0.169.0") || !strings.Contains(warning, "0.170.2") {
		t.Fatalf("warning %q, err %v", warning, err)
	}
}
