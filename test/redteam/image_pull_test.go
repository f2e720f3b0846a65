package redteam

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/warden-bot/warden/sandbox/image"
	it "github.com/warden-bot/warden/sandbox/image/imagetest"
)

// Threat-model row: a repository's image registry is another tenant's
// adversary. Content one registry served must never reach another
// repository's commands unless every byte matched its digest; a layer is
// capped by what it writes, not by what it carries; a pull reaches only
// public addresses unless the operator named the registry.

// noise is incompressible: a layer of it is bigger compressed than a
// trojan, which is padded to the real layer's size.
func noise(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return string(b)
}

// tarOf is the uncompressed tar stream of the entries.
func tarOf(t *testing.T, entries ...it.Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.Header
		h.Size, h.Typeflag = int64(len(e.Body)), tar.TypeReg
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(e.Body))
	}
	tw.Close()
	return buf.Bytes()
}

// realImage is an image of one layer whose bin/tool prints REAL, and that
// layer's digest and compressed size.
func realImage(t *testing.T) (v1.Image, v1.Hash, int64) {
	l := it.Layer(t, it.Entry{Header: tar.Header{Name: "bin/tool", Mode: 0o755}, Body: "echo REAL\n#" + noise(16<<10)})
	d, _ := l.Digest()
	size, _ := l.Size()
	return it.Image(t, nil, l), d, size
}

// trojanFor is a gzip'd tar whose bin/tool prints TROJAN, padded with
// zeros to size: a reader that stops at the tar's end never sees the pad.
func trojanFor(t *testing.T, size int64) []byte {
	b := it.Gzip(t, tarOf(t, it.Entry{Header: tar.Header{Name: "bin/tool", Mode: 0o755}, Body: "echo TROJAN from repository A\n"}))
	if int64(len(b)) > size {
		t.Fatalf("trojan %d bytes, over the real layer's %d", len(b), size)
	}
	return append(b, make([]byte, size-int64(len(b)))...)
}

// serveBlob answers GETs of the blob digest (under any repository whose
// path holds repo) with body; everything else reaches the registry.
func serveBlob(repo string, digest v1.Hash, body []byte) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.Contains(r.URL.Path, repo) && strings.HasSuffix(r.URL.Path, "/blobs/"+digest.String()) {
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				w.Write(body)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func byDigest(t *testing.T, host, repo string, img v1.Image) string {
	t.Helper()
	it.Push(t, host+"/"+repo+":1", img)
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return host + "/" + repo + "@" + d.String()
}

func readTool(root image.Root) string {
	b, _ := os.ReadFile(filepath.Join(root.Dir, "bin/tool"))
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// Finding 1 (#37): repository A's registry serves the real manifest and
// config under the real digest with a padded trojan layer; repository B
// then names the real image by the same digest on its own registry.
func TestImageCrossRegistryPoisoningRefused(t *testing.T) {
	img, layer, size := realImage(t)
	evil := it.RegistryWith(t, serveBlob("/evil/", layer, trojanFor(t, size)))
	good := it.Registry(t)
	refA, refB := byDigest(t, evil, "evil/golang", img), byDigest(t, good, "library/golang", img)
	s := &image.Store{Dir: filepath.Join(t.TempDir(), "images"), Registries: []string{evil, good}, Keychain: authn.NewMultiKeychain()}
	rootA, err := s.Pull(context.Background(), refA)
	if err == nil {
		t.Errorf("repository A's trojan layer was accepted: bin/tool says %q", readTool(rootA))
	} else {
		imageRefusedNoFatal(t, err, "digest")
	}
	rootB, err := s.Pull(context.Background(), refB)
	if err != nil {
		t.Fatal(err)
	}
	if got := readTool(rootB); got != "echo REAL" {
		t.Fatalf("repository B's commands would run %q (from %s)", got, rootB.Dir)
	}
}

// A padded trojan on the image's own registry: refused, nothing cached.
func TestImagePaddedTrojanLayerRefused(t *testing.T) {
	img, layer, size := realImage(t)
	host := it.RegistryWith(t, serveBlob("/app/", layer, trojanFor(t, size)))
	ref := byDigest(t, host, "app/tool", img)
	dir := filepath.Join(t.TempDir(), "images")
	s := &image.Store{Dir: dir, Registries: []string{host}, Keychain: authn.NewMultiKeychain()}
	root, err := s.Pull(context.Background(), ref)
	if err == nil {
		t.Fatalf("the padded trojan was unpacked: bin/tool says %q", readTool(root))
	}
	imageRefused(t, err, "digest")
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a refused image left %d entries in the cache", len(entries))
	}
}

func imageRefusedNoFatal(t *testing.T, err error, what string) {
	t.Helper()
	if !strings.Contains(err.Error(), what) || !isRefused(err) {
		t.Errorf("want refused (%s), got %v", what, err)
	}
}

// Finding 4 (#37): a few KB of layer in GNU's sparse format expand to
// 64 MiB; the caps (1 MiB) must hold for what is written.
func TestImageSparseBombRefused(t *testing.T) {
	host := it.Registry(t)
	ref := it.Push(t, host+"/bomb:1", it.Image(t, nil, it.RawLayer(t, it.SparseTar("big", 64<<20))))
	dir := filepath.Join(t.TempDir(), "images")
	s := &image.Store{Dir: dir, MaxLayerBytes: 1 << 20, MaxImageBytes: 1 << 20, Registries: []string{host}, Keychain: authn.NewMultiKeychain()}
	root, err := s.Pull(context.Background(), ref)
	if err == nil {
		fi, _ := os.Stat(filepath.Join(root.Dir, "big"))
		t.Fatalf("the sparse entry was written: %d bytes", fi.Size())
	}
	imageRefused(t, err, "cap")
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a refused image left %d entries in the cache", len(entries))
	}
}

func isRefused(err error) bool { return errors.Is(err, image.ErrRefused) }
