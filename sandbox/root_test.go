package sandbox

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/warden-bot/warden/sandbox/image"
	it "github.com/warden-bot/warden/sandbox/image/imagetest"
)

// With a Root, the command sees the image's /usr and /etc, never the
// worker's: a program the worker has and the image lacks is not there, and
// the image's PATH directory outside /usr is.
func TestImageRootReplacesSystem(t *testing.T) {
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
