package sandbox

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// In an image, the helper bound in must be static: a dynamically linked one
// (this race-enabled test binary) is refused with an error saying how to
// build it, before anything starts; without an image the worker's own
// libraries serve it.
func TestDynamicHelperRefusedInImage(t *testing.T) {
	saved := helperPath.Load()
	helperPath.Store(nil)
	defer helperPath.Store(saved)
	exe, err := limiter()
	if err != nil {
		t.Fatal(err)
	}
	if interp, err := interpreter(exe); err != nil || interp == "" {
		t.Fatalf("this test binary should be dynamically linked (cgo): %q %v", interp, err)
	}
	_, err = helperFor(t.TempDir())
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "dynamically linked") || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Fatalf("a dynamic helper in an image: %v", err)
	}
	r := Run(t.Context(), Profile{Kind: Test, Argv: []string{"true"}, Tree: Tree{Dir: t.TempDir()}, Root: t.TempDir()})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "dynamically linked") {
		t.Fatalf("Run in an image with a dynamic helper: %+v", r)
	}
	if _, err := helperFor(""); err != nil {
		t.Fatalf("without an image: %v", err)
	}
	if err := UseHelper(exe); err == nil || helperPath.Load() != nil {
		t.Fatal("UseHelper took a dynamically linked binary")
	}
}

// A profile's Forward reaches Warden's socket through the helper, with no
// socat anywhere: a PATH holding only a shell and curl.
func TestForwardNeedsNothingFromTheSandbox(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "model.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("METERED")) }))
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	bin := t.TempDir()
	for _, p := range []string{"sh", "curl"} {
		full, err := exec.LookPath(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(full, filepath.Join(bin, p)); err != nil {
			t.Fatal(err)
		}
	}
	r, out := try(t, Profile{Argv: []string{"sh", "-c", "curl -sS --max-time 5 http://127.0.0.1:41234/"}, Tree: Tree{Dir: t.TempDir()},
		Env: []string{"PATH=" + bin}, ReadOnly: []string{bin}, Forward: []Forward{{Port: 41234, Socket: sock}}})
	if r.ExitCode != 0 || !strings.Contains(out, "METERED") {
		t.Fatalf("exit %d:\n%s", r.ExitCode, out)
	}
}

// A forwarder that cannot listen fails the command: it never runs without
// its way out.
func TestForwarderFailureStopsTheCommand(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "x.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wt := t.TempDir()
	// The second forwarder finds the port taken by the first.
	r, out := try(t, Profile{Argv: []string{"sh", "-c", "echo RAN > ran"}, Tree: Tree{Dir: wt},
		Forward: []Forward{{Port: 41235, Socket: sock}, {Port: 41235, Socket: sock}}})
	if _, err := os.Stat(filepath.Join(wt, "ran")); err == nil || r.ExitCode == 0 || !strings.Contains(out, "did not start") {
		t.Fatalf("exit %d, the command ran without its forwarder:\n%s", r.ExitCode, out)
	}
}
