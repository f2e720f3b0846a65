package redteam

import (
	"archive/tar"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/warden-bot/warden/sandbox/image"
	it "github.com/warden-bot/warden/sandbox/image/imagetest"
	tw "github.com/warden-bot/warden/test/world"
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
	s := &image.Store{Dir: dir, MaxLayerBytes: maxLayer, Registries: []string{host}, Keychain: authn.NewMultiKeychain()}
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

// Through the real binary: a task whose image (here WARDEN_DEFAULT_IMAGE)
// carries a device node ends blocked naming the refusal, before any model
// call, and nothing of the image is left in the worker's cache.
func TestImageHostileBlocksTask(t *testing.T) {
	host := it.Registry(t)
	ref := it.Push(t, host+"/hostile:2", it.Image(t, nil, it.Layer(t,
		it.Entry{Header: tar.Header{Name: "bin/sh", Mode: 0o755}, Body: "#!/bin/sh\n"},
		it.Entry{Header: tar.Header{Name: "dev/mem", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 1}})))
	w := tw.New(t, nil, func(env map[string]string) { env["WARDEN_DEFAULT_IMAGE"], env["WARDEN_IMAGE_REGISTRIES"] = ref, host })
	w.Model.Script(tw.HappyScript)
	w.Label(40, "Add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(40, 120*time.Second)
	if rec.Outcome != "blocked" || !strings.Contains(rec.Summary, "refused") || !strings.Contains(rec.Summary, "device node") {
		t.Fatalf("record = %+v", rec)
	}
	if n := len(w.Model.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
	entries, _ := os.ReadDir(filepath.Join(w.Env["WARDEN_DATA_DIR"], "images"))
	if len(entries) != 0 {
		t.Fatalf("the refused image left %d entries in the cache", len(entries))
	}
}

// Through the real binary: an image on a loopback registry the operator did
// not name ends the task blocked, naming the image and the reason, before
// any request reaches the registry; the record keeps the refused pull.
func TestImageUnnamedRegistryBlocksTask(t *testing.T) {
	host := it.Registry(t)
	ref := it.Push(t, host+"/private/tools:1", it.Image(t, nil, it.Layer(t,
		it.Entry{Header: tar.Header{Name: "bin/sh", Mode: 0o755}, Body: "#!/bin/sh\n"})))
	w := tw.New(t, nil, func(env map[string]string) { env["WARDEN_DEFAULT_IMAGE"] = ref })
	w.Model.Script(tw.HappyScript)
	w.Label(41, "Add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(41, 120*time.Second)
	if rec.Outcome != "blocked" || !strings.Contains(rec.Summary, ref) || !strings.Contains(rec.Summary, "WARDEN_IMAGE_REGISTRIES") {
		t.Fatalf("record = %+v", rec)
	}
	if len(rec.Images) != 1 || rec.Images[0].Verdict != "refused" || rec.Images[0].Registry != host {
		t.Fatalf("the record's image pulls: %+v", rec.Images)
	}
}
