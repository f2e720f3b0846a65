package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A worker configured with an agent CLI that is missing or another version
// does not start: exit 2, naming WARDEN_AGENT_BIN and the pinned version.
func TestServeRefusesMissingOrOtherAgentCLI(t *testing.T) {
	other := filepath.Join(t.TempDir(), "codex")
	os.WriteFile(other, []byte("#!/bin/sh\necho 'codex-cli 0.1.0'\n"), 0o755)
	for _, bin := range []string{filepath.Join(t.TempDir(), "missing"), other} {
		env := map[string]string{"WARDEN_WEBHOOK_SECRET": "x", "WARDEN_AGENT": "codex", "WARDEN_AGENT_BIN": bin, "WARDEN_ADDR": "127.0.0.1:0"}
		var stderr bytes.Buffer
		code := serve(nil, func(k string) string { return env[k] }, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "WARDEN_AGENT_BIN") || !strings.Contains(stderr.String(), "0.169.0") {
			t.Fatalf("%s: exit %d, %s", bin, code, stderr.String())
		}
	}
}
