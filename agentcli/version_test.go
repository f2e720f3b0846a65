package agentcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveRefusesMissingOrOtherVersion(t *testing.T) {
	p := Presets["claude-code"]
	if _, err := Resolve(p, filepath.Join(t.TempDir(), "claude")); err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), p.Version) {
		t.Fatalf("missing CLI: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "claude")
	os.WriteFile(bin, []byte("#!/bin/sh\necho '2.0.1 (Claude Code)'\n"), 0o755)
	if _, err := Resolve(p, bin); err == nil || !strings.Contains(err.Error(), "tested with claude "+p.Version) {
		t.Fatalf("other version: %v", err)
	}
	os.WriteFile(bin, []byte("#!/bin/sh\necho '"+p.Version+" (Claude Code)'\n"), 0o755)
	if got, err := Resolve(p, bin); err != nil || got != bin {
		t.Fatalf("pinned version: %q %v", got, err)
	}
}

func TestStepsNameToolCalls(t *testing.T) {
	if s := claudeStep([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit","input":{"file_path":"/w/calc.go"}}]}}`)); s != "Edit /w/calc.go" {
		t.Fatalf("claude step %q", s)
	}
	if s := codexStep([]byte(`{"type":"item.started","item":{"type":"command_execution","command":"go test ./..."}}`)); s != "run go test ./..." {
		t.Fatalf("codex step %q", s)
	}
}
