package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNoToolchainProblem(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	if p := NoToolchainProblem(""); !strings.Contains(p, "WARDEN_DEFAULT_IMAGE") {
		t.Fatalf("no warning without image and toolchain: %q", p)
	}
	if p := NoToolchainProblem("ghcr.io/x/y:1"); p != "" {
		t.Fatalf("warning with a default image: %q", p)
	}
	// A toolchain in a home directory is not visible in the sandbox.
	os.WriteFile(filepath.Join(empty, "go"), []byte("#!/bin/sh\n"), 0o755)
	if len(WorkerToolchains()) != 0 {
		t.Fatal("a toolchain outside the sandbox's roots counted")
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	if _, err := os.Stat("/usr/bin/python3"); err == nil && NoToolchainProblem("") != "" {
		t.Fatal("warning although /usr/bin/python3 is there")
	}
}
