package image_test

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/warden-bot/warden/sandbox/image"
	it "github.com/warden-bot/warden/sandbox/image/imagetest"
)

// store is a fresh store allowed to reach the loopback registries named.
func store(t *testing.T, registries ...string) *image.Store {
	return &image.Store{Dir: filepath.Join(t.TempDir(), "images"), Registries: registries, Keychain: authn.NewMultiKeychain()}
}

func TestPullUnpacksLayersWithWhiteouts(t *testing.T) {
	host := it.Registry(t)
	base := it.Layer(t,
		it.Entry{Header: tar.Header{Name: "usr/", Typeflag: tar.TypeDir}},
		it.Entry{Header: tar.Header{Name: "usr/bin/", Typeflag: tar.TypeDir}},
		it.Entry{Header: tar.Header{Name: "usr/bin/tool", Mode: 0o755}, Body: "#!/bin/sh\necho v1\n"},
		it.Entry{Header: tar.Header{Name: "usr/bin/old"}, Body: "old"},
		it.Entry{Header: tar.Header{Name: "opt/keep/", Typeflag: tar.TypeDir}},
		it.Entry{Header: tar.Header{Name: "opt/keep/a"}, Body: "a"},
		it.Entry{Header: tar.Header{Name: "bin", Typeflag: tar.TypeSymlink, Linkname: "usr/bin"}},
		it.Entry{Header: tar.Header{Name: "etc/alt", Typeflag: tar.TypeSymlink, Linkname: "/usr/bin/tool"}},
	)
	top := it.Layer(t,
		it.Entry{Header: tar.Header{Name: "usr/bin/.wh.old"}},
		it.Entry{Header: tar.Header{Name: "opt/keep/.wh..wh..opq"}},
		it.Entry{Header: tar.Header{Name: "opt/keep/b"}, Body: "b"},
		it.Entry{Header: tar.Header{Name: "usr/bin/tool", Mode: 0o755}, Body: "#!/bin/sh\necho v2\n"},
		it.Entry{Header: tar.Header{Name: "usr/bin/hard", Typeflag: tar.TypeLink, Linkname: "usr/bin/tool"}},
	)
	ref := it.Push(t, host+"/tools/py:3", it.Image(t, []string{"PATH=/opt/py/bin:/usr/bin", "LANG=C.UTF-8"}, base, top))
	s := store(t, host)
	root, err := s.Pull(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(root.Digest, host+"/tools/py@sha256:") || !slices.Equal(root.Env, []string{"PATH=/opt/py/bin:/usr/bin", "LANG=C.UTF-8"}) {
		t.Fatalf("root %+v", root)
	}
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(root.Dir, p)); return string(b) }
	if read("usr/bin/tool") != "#!/bin/sh\necho v2\n" || read("usr/bin/hard") != read("usr/bin/tool") {
		t.Errorf("the upper layer's file and its hard link: %q %q", read("usr/bin/tool"), read("usr/bin/hard"))
	}
	if _, err := os.Lstat(filepath.Join(root.Dir, "usr/bin/old")); !os.IsNotExist(err) {
		t.Errorf("whiteout ignored: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root.Dir, "opt/keep/a")); !os.IsNotExist(err) || read("opt/keep/b") != "b" {
		t.Errorf("opaque whiteout ignored")
	}
	if fi, err := os.Lstat(filepath.Join(root.Dir, "etc/resolv.conf")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("no mount point for the worker's resolver file: %v", err)
	}
	if l, _ := os.Readlink(filepath.Join(root.Dir, "etc/alt")); l != "/usr/bin/tool" {
		t.Errorf("absolute link kept as the image has it: %q", l)
	}
	// The same digest is unpacked once.
	stamp, _ := os.Stat(filepath.Join(root.Dir, "usr/bin/tool"))
	again, err := s.Pull(context.Background(), ref)
	if err != nil || again.Dir != root.Dir {
		t.Fatalf("%+v %v", again, err)
	}
	if st, _ := os.Stat(filepath.Join(root.Dir, "usr/bin/tool")); !st.ModTime().Equal(stamp.ModTime()) || !os.SameFile(st, stamp) {
		t.Error("unpacked again")
	}
}

func TestGCRemovesLeastRecentlyUsedUnusedImages(t *testing.T) {
	host := it.Registry(t)
	big := strings.Repeat("x", 64<<10)
	s := store(t, host)
	var roots []image.Root
	for _, tag := range []string{"a", "b", "c"} {
		ref := it.Push(t, host+"/img:"+tag, it.Image(t, nil, it.Layer(t, it.Entry{Header: tar.Header{Name: "f-" + tag}, Body: big})))
		r, err := s.Pull(context.Background(), ref)
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, r)
	}
	s.MaxCacheBytes = 100 << 10 // room for one
	s.Release(roots[0])
	s.Release(roots[1]) // c is still in use
	// Release also starts a background collection; either removes them.
	if _, err := s.GC(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(roots[2].Dir); err != nil {
		t.Fatalf("the image in use was removed: %v", err)
	}
	for _, r := range roots[:2] {
		if _, err := os.Stat(r.Dir); !os.IsNotExist(err) {
			t.Fatal("an unused image was kept over the cap")
		}
	}
}
