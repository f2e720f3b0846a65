package gocache

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary serve as GOCACHEPROG for the go command.
func TestMain(m *testing.M) {
	if args := os.Getenv("GOCACHE_TEST_SERVE"); args != "" {
		dirs := strings.Split(args, "|")
		if err := Serve(os.Stdin, os.Stdout, dirs[0], dirs[1]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The go command builds through the helper: hits come from the shared
// cache, which it never writes; new results land in the private directory.
func TestGoBuildsThroughTheHelper(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module x\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "x.go"), []byte("package x\n\nfunc X() int { return 1 }\n"), 0o644)
	goCmd := func(env ...string) string {
		c := exec.Command("go", "build", "./...")
		c.Dir = mod
		c.Env = append(os.Environ(), append([]string{"GOFLAGS=", "GOTOOLCHAIN=local"}, env...)...)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		return string(out)
	}
	goCmd("GOCACHE=" + shared) // warm the shared cache
	before := count(t, shared)
	os.Chmod(shared, 0o500)
	defer os.Chmod(shared, 0o700)
	exe, _ := os.Executable()
	private := t.TempDir()
	os.WriteFile(filepath.Join(mod, "y.go"), []byte("package x\n\nfunc Y() int { return 2 }\n"), 0o644)
	goCmd("GOCACHE="+filepath.Join(t.TempDir(), "own"), "GOCACHEPROG="+exe, "GOCACHE_TEST_SERVE="+shared+"|"+private)
	if count(t, shared) != before {
		t.Fatal("the shared cache changed")
	}
	if count(t, private) == 0 {
		t.Fatal("nothing new was put in the private directory")
	}
}

func count(t *testing.T, dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}
