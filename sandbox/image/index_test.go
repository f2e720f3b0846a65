package image_test

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	it "github.com/warden-bot/warden/sandbox/image/imagetest"
)

// A multi-platform reference resolves to the index's image for linux on
// this architecture, verified against the index's entry.
func TestPullIndexPicksThisPlatform(t *testing.T) {
	host := it.Registry(t)
	img := it.Image(t, nil, it.Layer(t, it.Entry{Header: tar.Header{Name: "f"}, Body: "mine"}))
	other := it.Image(t, nil, it.Layer(t, it.Entry{Header: tar.Header{Name: "f"}, Body: "other"}))
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: other, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "s390x-none"}}},
		mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: runtime.GOARCH}}})
	r, err := name.ParseReference(host + "/multi:1")
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(r, idx); err != nil {
		t.Fatal(err)
	}
	root, err := store(t, host).Pull(context.Background(), host+"/multi:1")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := img.Digest()
	if b, _ := os.ReadFile(filepath.Join(root.Dir, "f")); string(b) != "mine" || !strings.HasSuffix(root.Digest, want.String()) {
		t.Fatalf("root %+v holds %q", root, b)
	}
}
