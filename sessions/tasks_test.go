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
		err := CheckCLI(&config.Config{Agent: "codex", AgentBin: bin, Role: "all"})
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Setting != "WARDEN_AGENT_BIN" || !strings.Contains(err.Error(), "0.169.0") {
			t.Fatalf("%s: %v", bin, err)
		}
	}
	if err := CheckCLI(&config.Config{Agent: "codex", AgentBin: other, Role: "web"}); err != nil {
		t.Fatalf("a web-only process runs no agent, yet: %v", err)
	}
	if err := CheckCLI(&config.Config{Agent: "llm"}); err != nil {
		t.Fatalf("the llm agent needs no CLI, yet: %v", err)
	}
}
