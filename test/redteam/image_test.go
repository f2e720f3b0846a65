package redteam

import (
	"archive/tar"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/warden-bot/warden/sandbox/image"
	it "github.com/warden-bot/warden/sandbox/image/imagetest"
)

// Threat-model row: a repository names a hostile image (`image:` in
// .github/warden.yml). Its layers must not write outside the image cache,
// create devices, or carry privileges into the sandbox; an oversized layer
// must not fill the worker's disk.

// imagePull pushes one layer of entries to a loopback registry and pulls it
// into a fresh store; it returns the store's directory and the pull's result.
func imagePull(t *testing.T, maxLayer int64, entries ...it.Entry) (string, image.Root, error) {
	t.Helper()
	host := it.Registry(t)
	ref := it.Push(t, host+"/hostile:1", it.Image(t, nil, it.Layer(t, entries...)))
	dir := filepath.Join(t.TempDir(), "images")
	s := &image.Store{Dir: dir, MaxLayerBytes: maxLayer, Keychain: authn.NewMultiKeychain()}
	root, err := s.Pull(context.Background(), ref)
	return dir, root, err
}

func imageRefused(t *testing.T, err error, what string) {
	t.Helper()
	if !errors.Is(err, image.ErrRefused) || !strings.Contains(err.Error(), what) {
		t.Fatalf("want refused (%s), got %v", what, err)
	}
}

func TestImagePathEscapeRefused(t *testing.T) {
	victim := t.TempDir()
	rel, _ := filepath.Rel("/", filepath.Join(victim, "pwned"))
	_, _, err := imagePull(t, 0, it.Entry{Header: tar.Header{Name: strings.Repeat("../", 30) + rel}, Body: "x"})
	imageRefused(t, err, "escapes the root")
	if _, err := os.Stat(filepath.Join(victim, "pwned")); !os.IsNotExist(err) {
		t.Fatal("the layer wrote outside the image root")
	}
}

func TestImageWriteThroughAbsoluteLinkRefused(t *testing.T) {
	victim := t.TempDir()
	_, _, err := imagePull(t, 0,
		it.Entry{Header: tar.Header{Name: "evil", Typeflag: tar.TypeSymlink, Linkname: victim}},
		it.Entry{Header: tar.Header{Name: "evil/pwned"}, Body: "x"})
	imageRefused(t, err, "symbolic link")
	if _, err := os.Stat(filepath.Join(victim, "pwned")); !os.IsNotExist(err) {
		t.Fatal("the layer followed a link out of the image root")
	}
}

func TestImageHardLinkOutsideRefused(t *testing.T) {
	_, _, err := imagePull(t, 0, it.Entry{Header: tar.Header{Name: "shadow", Typeflag: tar.TypeLink, Linkname: "../../../../etc/shadow"}})
	imageRefused(t, err, "escapes the root")
}

func TestImageDeviceNodeRefused(t *testing.T) {
	_, _, err := imagePull(t, 0, it.Entry{Header: tar.Header{Name: "dev/sda", Typeflag: tar.TypeBlock, Devmajor: 8}})
	imageRefused(t, err, "device node")
}

func TestImageSetuidNeutralised(t *testing.T) {
	_, root, err := imagePull(t, 0, it.Entry{Header: tar.Header{Name: "usr/bin/su", Mode: 0o4755 | 0o2000}, Body: "#!/bin/sh\n"})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(root.Dir, "usr/bin/su"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 || fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v kept privileges", fi.Mode())
	}
}

func TestImageOversizedLayerRefused(t *testing.T) {
	dir, _, err := imagePull(t, 4<<10, it.Entry{Header: tar.Header{Name: "big"}, Body: strings.Repeat("0", 64<<10)})
	imageRefused(t, err, "cap")
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("a refused image left %d entries in the cache", len(entries))
	}
}
