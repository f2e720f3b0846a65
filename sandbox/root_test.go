package sandbox

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/warden-bot/warden/sandbox/egress"
	"github.com/warden-bot/warden/sandbox/image"
	it "github.com/warden-bot/warden/sandbox/image/imagetest"
	"github.com/warden-bot/warden/test/harness"
)

// With a Root, the command sees the image's /usr and /etc, never the
// worker's: a program the worker has and the image lacks is not there, and
// the image's PATH directory outside /usr is.
func TestImageRootReplacesSystem(t *testing.T) {
	staticHelper(t)
	if _, err := os.Stat("/usr/bin/perl"); err != nil {
		t.Fatal("this test needs /usr/bin/perl on the worker (to prove it is hidden)")
	}
	extra := it.Layer(t,
		it.Entry{Header: tar.Header{Name: "toolchain/bin/hello", Mode: 0o755}, Body: "#!/bin/sh\necho hello from the image\n"},
		it.Entry{Header: tar.Header{Name: "etc/marker"}, Body: "image-etc\n"})
	env := []string{"PATH=/toolchain/bin:/usr/bin:/bin"}
	img := it.Image(t, env, it.HostLayer(t, []string{"sh", "cat"}, nil, nil), extra)
	host := it.Registry(t)
	ref := it.Push(t, host+"/root:1", img)
	s := &image.Store{Dir: filepath.Join(t.TempDir(), "images"), Registries: []string{host}, Keychain: authn.NewMultiKeychain()}
	root, err := s.Pull(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	wt := t.TempDir()
	r, out := try(t, Profile{Argv: []string{"sh", "-c", "hello; cat /etc/marker; test -e /usr/bin/perl && echo worker-perl-visible; echo done"},
		Tree: Tree{Dir: wt}, Root: root.Dir, Env: root.Env})
	if r.ExitCode != 0 || !strings.Contains(out, "hello from the image") || !strings.Contains(out, "image-etc") || !strings.Contains(out, "done") {
		t.Fatalf("exit %d:\n%s", r.ExitCode, out)
	}
	if strings.Contains(out, "worker-perl-visible") {
		t.Fatalf("the worker's /usr is visible:\n%s", out)
	}
}

// staticHelper binds a static build of bot into the sandbox: this
// race-enabled test binary is dynamically linked, refused in an image.
func staticHelper(t *testing.T) {
	t.Helper()
	if err := UseHelper(harness.BuildBinary(t)); err != nil {
		t.Fatal(err)
	}
}

// An image's PATH directory reached through a link (which could point at
// the worker's files) is not bound.
func TestImagePathThroughLinkNotBound(t *testing.T) {
	root := t.TempDir()
	os.Symlink("/etc", filepath.Join(root, "toolchain"))
	if dirs := imagePathDirs(root, []string{"PATH=/toolchain/ssl:/usr/bin"}); len(dirs) != 0 {
		t.Fatalf("bound %v", dirs)
	}
	os.MkdirAll(filepath.Join(root, "go", "bin"), 0o755)
	if dirs := imagePathDirs(root, []string{"PATH=/go/bin:/usr/bin"}); len(dirs) != 1 || dirs[0] != "/go/bin" {
		t.Fatalf("bound %v", dirs)
	}
}

// An image with nothing but a static busybox shell and one static client
// (no socat, no libc) still has its way out: a request through $http_proxy
// reaches Warden's egress proxy, which judges it (10.0.0.0/8 is refused).
// The client is a static Go program (it.StaticClient).
func TestEgressFromShellOnlyImage(t *testing.T) {
	staticHelper(t)
	ref, host := it.ShellOnly(t)
	s := &image.Store{Dir: filepath.Join(t.TempDir(), "images"), Registries: []string{host}, Keychain: authn.NewMultiKeychain()}
	root, err := s.Pull(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []egress.Conn
	_, out := try(t, Profile{Argv: []string{"sh", "-c", "fetch http://10.9.8.7/simple/; echo fetch-exit=$?"},
		Tree: Tree{Dir: t.TempDir()}, Root: root.Dir, Env: root.Env, Network: Egress,
		Egress: EgressPolicy{OnConn: func(c egress.Conn) { mu.Lock(); seen = append(seen, c); mu.Unlock() }}})
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].Host != "10.9.8.7" || seen[0].Verdict != egress.Deny {
		t.Fatalf("the request did not reach the egress proxy: %+v\n%s", seen, out)
	}
}
