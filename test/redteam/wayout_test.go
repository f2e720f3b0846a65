package redteam

// Threat-model rows "the network" and "the worker's disk" (issue #37): a
// sandbox's way out and its caps come from Warden, never from the image.

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/sandbox/egress"
	"github.com/warden-bot/warden/sandbox/image"
	it "github.com/warden-bot/warden/sandbox/image/imagetest"
	"github.com/warden-bot/warden/test/harness"
)

// wayoutShellImage is an image with nothing but a static busybox shell and
// a static HTTP client (it.StaticClient): no socat, no libc, nothing of
// the worker's.
func wayoutShellImage(t *testing.T) image.Root {
	t.Helper()
	ref, host := it.ShellOnly(t)
	s := &image.Store{Dir: filepath.Join(t.TempDir(), "images"), Registries: []string{host}, Keychain: authn.NewMultiKeychain()}
	root, err := s.Pull(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// A `setup:` in an image holding only a shell asks a package index through
// $http_proxy: the request reaches Warden's egress proxy (and is judged
// there: 10.0.0.0/8 is refused), as it does without an image.
func TestEgressFromImageWithOnlyAShell(t *testing.T) {
	if err := sandbox.UseHelper(harness.BuildBinary(t)); err != nil { // the race-enabled test binary is not static
		t.Fatal(err)
	}
	root := wayoutShellImage(t)
	var mu sync.Mutex
	var seen []egress.Conn
	var out strings.Builder
	r := sandbox.Run(context.Background(), sandbox.Profile{Kind: sandbox.Setup, Tree: sandbox.Tree{Dir: t.TempDir()}, Root: root.Dir,
		Env: root.Env, Network: sandbox.Egress, Timeout: time.Minute, Stdout: &out, Stderr: &out,
		Argv:   []string{"sh", "-c", "fetch http://10.9.8.7/simple/ ; echo fetch-exit=$?"},
		Egress: sandbox.EgressPolicy{OnConn: func(c egress.Conn) { mu.Lock(); seen = append(seen, c); mu.Unlock() }}})
	mu.Lock()
	defer mu.Unlock()
	if r.Err != nil || len(seen) != 1 || seen[0].Host != "10.9.8.7" || seen[0].Verdict != egress.Deny {
		t.Fatalf("nothing (or not the request) reached the egress proxy: err %v, exit %d, egress %+v\n%s", r.Err, r.ExitCode, seen, out.String())
	}
}

// A command that writes past the worktree's disk cap and keeps running is
// stopped while it runs, not judged only once it ends.
func TestDiskCapStopsARunningCommand(t *testing.T) {
	var out strings.Builder
	begin := time.Now()
	r := sandbox.Run(context.Background(), sandbox.Profile{Kind: sandbox.Test, Tree: sandbox.Tree{Dir: t.TempDir()},
		Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.Limits{Disk: 16 << 20}, Timeout: 2 * time.Minute, Stdout: &out, Stderr: &out,
		Argv: []string{"sh", "-c", "head -c 48000000 /dev/zero > fill.bin; echo WROTE; sleep 60; echo STILL-RUNNING"}})
	took := time.Since(begin)
	if strings.Contains(out.String(), "STILL-RUNNING") || took > 30*time.Second {
		t.Fatalf("the command ran on %s over the disk cap (cap %q):\n%s", took, r.Cap, out.String())
	}
	if r.ExitCode == 0 || r.Canceled || !strings.Contains(r.Cap, "while the command runs: it was stopped") {
		t.Fatalf("exit %d, canceled %v, cap %q: want the disk cap named as stopping it", r.ExitCode, r.Canceled, r.Cap)
	}
}
