package image

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// unpackImage applies the layers of img (whose verified manifest is m) in
// order into dir. What an untrusted
// layer could do to the worker is refused: a name or hard link escaping the
// root (".."), a write through a symbolic link (links are created, never
// followed), device nodes, layers or images over their size cap (counted
// by what is read and by what is written, which a sparse entry makes far
// more), and a layer that does not match its digest.
// setuid, setgid and sticky bits are dropped (nothing in the sandbox may
// gain privileges; bubblewrap also sets no_new_privs).
func unpackImage(ctx context.Context, img v1.Image, m *v1.Manifest, dir string, maxLayer, maxImage int64) error {
	layers, err := img.Layers()
	if err != nil {
		return fmt.Errorf("image layers: %w", err)
	}
	if len(layers) != len(m.Layers) {
		return fmt.Errorf("%w: %d layers for a manifest of %d", ErrRefused, len(layers), len(m.Layers))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("image root: %w", err)
	}
	budget := maxImage
	for i, l := range layers {
		if err := ctx.Err(); err != nil {
			return err
		}
		desc := m.Layers[i]
		if desc.Size > maxLayer {
			return fmt.Errorf("%w: layer %d is %d bytes, over the %d-byte cap", ErrRefused, i, desc.Size, maxLayer)
		}
		if d, err := l.Digest(); err != nil || d != desc.Digest {
			return fmt.Errorf("%w: layer %d is not the manifest's %s", ErrRefused, i, desc.Digest)
		}
		used, err := unpackLayer(l, desc, dir, maxLayer, min(maxLayer, budget))
		if err != nil {
			return fmt.Errorf("image layer %d: %w", i, err)
		}
		budget -= used
	}
	return nil
}

// unpackLayer applies one layer, then reads it to its end and verifies it
// against desc: a tar that ends early must not hide what follows from the
// digest. It returns the bytes the layer used.
func unpackLayer(l v1.Layer, desc v1.Descriptor, dir string, maxCompressed, limit int64) (int64, error) {
	rc, err := l.Compressed()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	dr := &digestReader{r: rc, h: sha256.New(), max: maxCompressed}
	tr, err := decompress(dr)
	if err != nil {
		return 0, err
	}
	defer tr.Close()
	used, err := applyLayer(tr, dir, limit)
	if err != nil {
		return used, err
	}
	if err := dr.verify(desc); err != nil {
		return used, err
	}
	return used, nil
}

// capReader fails once more than max bytes were read.
type capReader struct {
	r        io.Reader
	n, max   int64
	exceeded bool
}

func (c *capReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		c.exceeded = true
		return n, fmt.Errorf("%w: layer over its %d-byte cap", ErrRefused, c.max)
	}
	return n, err
}

// capWriter counts what is written to the disk against the layer's cap:
// a sparse entry costs its expanded size, whatever the stream carried.
type capWriter struct {
	w      io.Writer
	n, max int64
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.max {
		return 0, fmt.Errorf("%w: layer writes over its %d-byte cap", ErrRefused, c.max)
	}
	c.n += int64(len(p))
	return c.w.Write(p)
}

// applyLayer writes one layer's entries under dir and returns the bytes it
// used: the more of the tar stream read and the file bytes written.
func applyLayer(r io.Reader, dir string, limit int64) (int64, error) {
	cr := &capReader{r: r, max: limit}
	tr := tar.NewReader(cr)
	written := &capWriter{max: limit}
	used := func() int64 { return max(cr.n, written.n) }
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return used(), nil
		}
		if err != nil {
			return used(), err
		}
		if err := applyEntry(tr, h, dir, written); err != nil {
			return used(), err
		}
		if cr.exceeded {
			return used(), fmt.Errorf("%w: layer over its %d-byte cap", ErrRefused, limit)
		}
	}
}

// clean turns an entry name into a path relative to the root, refusing one
// that climbs out of it.
func clean(name string) (string, error) {
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: entry %q escapes the root", ErrRefused, name)
		}
	}
	rel := strings.TrimPrefix(path.Clean("/"+name), "/")
	return rel, nil
}

// safeParent makes sure every directory above rel is a real directory inside
// dir (created when missing), never a symbolic link that would carry the
// write elsewhere.
func safeParent(dir, rel string) error {
	cur := dir
	parts := strings.Split(path.Dir(rel), "/")
	for _, p := range parts {
		if p == "." || p == "" {
			continue
		}
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		switch {
		case os.IsNotExist(err):
			if err := os.Mkdir(cur, 0o755); err != nil {
				return err
			}
		case err != nil:
			return err
		case fi.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("%w: entry %q is written through the symbolic link %s", ErrRefused, rel, strings.TrimPrefix(cur, dir))
		case !fi.IsDir():
			return fmt.Errorf("%w: entry %q is below a non-directory", ErrRefused, rel)
		}
	}
	return nil
}
