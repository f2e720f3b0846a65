package image

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"runtime"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/klauspost/compress/zstd"
)

// Every byte Warden uses of an image is checked here against the digest
// that names it, never trusting the registry client to have done so: the
// manifest against the reference (or the index entry chosen), the config
// against the manifest, and each layer, read to its very end, against the
// manifest. The cache is keyed by the manifest's digest, so what one
// registry served can be used for another's reference only because every
// byte of it matched.

// resolve fetches ref's image for linux on this architecture and returns
// it with the digest of its verified manifest.
func resolve(r name.Reference, opts []remote.Option) (v1.Image, v1.Hash, error) {
	desc, err := remote.Get(r, opts...)
	if err != nil {
		return nil, v1.Hash{}, fmt.Errorf("pull image %s: %w", r, err)
	}
	if err := matches(desc.Manifest, desc.Digest, "manifest"); err != nil {
		return nil, v1.Hash{}, err
	}
	if d, ok := r.(name.Digest); ok && d.DigestStr() != desc.Digest.String() {
		return nil, v1.Hash{}, fmt.Errorf("%w: the manifest served is %s, not the %s the reference names", ErrRefused, desc.Digest, d.DigestStr())
	}
	want := desc.Digest
	var img v1.Image
	if desc.MediaType.IsIndex() {
		var idx v1.ImageIndex
		if idx, err = desc.ImageIndex(); err != nil {
			return nil, v1.Hash{}, fmt.Errorf("image index %s: %w", r, err)
		}
		if want, err = platformChild(idx); err != nil {
			return nil, v1.Hash{}, err
		}
		img, err = idx.Image(want)
	} else {
		img, err = desc.Image()
	}
	if err != nil {
		return nil, v1.Hash{}, fmt.Errorf("image %s: %w", r, err)
	}
	raw, err := img.RawManifest()
	if err != nil {
		return nil, v1.Hash{}, fmt.Errorf("image %s manifest: %w", r, err)
	}
	return img, want, matches(raw, want, "manifest")
}

// platformChild is the index's image for linux on this architecture.
func platformChild(idx v1.ImageIndex) (v1.Hash, error) {
	im, err := idx.IndexManifest()
	if err != nil {
		return v1.Hash{}, fmt.Errorf("image index: %w", err)
	}
	want := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	for _, m := range im.Manifests {
		if m.Platform != nil && m.Platform.Satisfies(want) && m.MediaType.IsImage() {
			return m.Digest, nil
		}
	}
	return v1.Hash{}, fmt.Errorf("%w: the image has no manifest for linux/%s", ErrRefused, runtime.GOARCH)
}

// verifiedConfig is the image's config file, its bytes checked against
// the manifest's digest for it.
func verifiedConfig(img v1.Image, m *v1.Manifest) (*v1.ConfigFile, error) {
	raw, err := img.RawConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image config: %w", err)
	}
	if err := matches(raw, m.Config.Digest, "config"); err != nil {
		return nil, err
	}
	cf, err := v1.ParseConfigFile(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: image config: %v", ErrRefused, err)
	}
	return cf, nil
}

func matches(b []byte, want v1.Hash, what string) error {
	if want.Algorithm != "sha256" {
		return fmt.Errorf("%w: %s digest %s is not sha256", ErrRefused, what, want)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != want.Hex {
		return fmt.Errorf("%w: the %s served does not match its digest %s (got sha256:%s)", ErrRefused, what, want, got)
	}
	return nil
}

// digestReader hashes and counts a layer's compressed bytes as they are
// read, failing once there are more than max.
type digestReader struct {
	r      io.Reader
	h      hash.Hash
	n, max int64
}

func (d *digestReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	d.h.Write(p[:n])
	d.n += int64(n)
	if d.n > d.max {
		return n, fmt.Errorf("%w: layer over its %d-byte cap", ErrRefused, d.max)
	}
	return n, err
}

// verify reads what is left of the layer (whatever follows the tar's end
// is part of what the digest covers) and checks all of it against desc.
func (d *digestReader) verify(desc v1.Descriptor) error {
	_, err := io.Copy(io.Discard, d)
	got := hex.EncodeToString(d.h.Sum(nil))
	switch {
	case d.n == desc.Size && got == desc.Digest.Hex:
		return nil
	case err != nil && d.n < desc.Size:
		return fmt.Errorf("read layer %s: %w", desc.Digest, err) // cut short: a network failure
	}
	return fmt.Errorf("%w: layer %s does not match its digest (%d bytes, sha256:%s)", ErrRefused, desc.Digest, d.n, got)
}

// decompress reads the tar stream out of a layer's bytes: gzip, zstd or
// none, told by their magic numbers.
func decompress(r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: layer: %v", ErrRefused, err)
		}
		return zr, nil
	case bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		// A frame's window is memory the decoder takes: bounded.
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
		if err != nil {
			return nil, fmt.Errorf("%w: layer: %v", ErrRefused, err)
		}
		return zr.IOReadCloser(), nil
	}
	return io.NopCloser(br), nil
}
