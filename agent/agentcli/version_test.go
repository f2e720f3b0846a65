package agentcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveRefusesMissingOlderOrOtherMajorVersion(t *testing.T) {
	p := Presets["claude-code"]
	if _, _, err := Resolve(p, filepath.Join(t.TempDir(), "claude")); err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), p.Version) {
		t.Fatalf("missing CLI: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "claude")
	for _, v := range []string{"2.0.1", "2.1.331", "3.0.0", "1.9.999", "garbage"} {
		os.WriteFile(bin, []byte("#!/bin/sh\necho '"+v+" (Claude Code)'\n"), 0o755)
		if _, _, err := Resolve(p, bin); err == nil || !strings.Contains(err.Error(), "tested with claude "+p.Version) {
			t.Fatalf("version %s: %v", v, err)
		}
	}
	os.WriteFile(bin, []byte("#!/bin/sh\necho '"+p.Version+" (Claude Code)'\n"), 0o755)
	if got, warning, err := Resolve(p, bin); err != nil || got != bin || warning != "" {
		t.Fatalf("pinned version: %q %q %v", got, warning, err)
	}
}

// Updating the CLI to a newer release of the same major version must not
// take the worker down: it starts, with a warning naming both versions.
func TestResolveStartsNewerSameMajorWithWarning(t *testing.T) {
	p := Presets["claude-code"]
	bin := filepath.Join(t.TempDir(), "claude")
	for _, v := range []string{"2.1.333", "2.2.0", "v2.10.1"} {
		os.WriteFile(bin, []byte("#!/bin/sh\necho '"+v+" (Claude Code)'\n"), 0o755)
		got, warning, err := Resolve(p, bin)
		if err != nil || got != bin || !strings.Contains(warning, p.Version) || !strings.Contains(warning, strings.TrimPrefix(v, "v")) {
			t.Fatalf("version %s: %q %q %v", v, got, warning, err)
		}
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
