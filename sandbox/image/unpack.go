package image

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// unpackImage applies img's layers in order into dir. What an untrusted
// layer could do to the worker is refused: a name or hard link escaping the
// root (".."), a write through a symbolic link (links are created, never
// followed), device nodes, and layers or images over their size cap.
// setuid, setgid and sticky bits are dropped (nothing in the sandbox may
// gain privileges; bubblewrap also sets no_new_privs).
func unpackImage(ctx context.Context, img v1.Image, dir string, maxLayer, maxImage int64) error {
	layers, err := img.Layers()
	if err != nil {
		return fmt.Errorf("image layers: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("image root: %w", err)
	}
	budget := maxImage
	for i, l := range layers {
		if err := ctx.Err(); err != nil {
			return err
		}
		if size, err := l.Size(); err == nil && size > maxLayer {
			return fmt.Errorf("%w: layer %d is %d bytes, over the %d-byte cap", ErrRefused, i, size, maxLayer)
		}
		rc, err := l.Uncompressed()
		if err != nil {
			return fmt.Errorf("image layer %d: %w", i, err)
		}
		used, err := applyLayer(rc, dir, min(maxLayer, budget))
		rc.Close()
		if err != nil {
			return fmt.Errorf("image layer %d: %w", i, err)
		}
		budget -= used
	}
	return nil
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

// applyLayer writes one layer's entries under dir and returns the bytes read.
func applyLayer(r io.Reader, dir string, max int64) (int64, error) {
	cr := &capReader{r: r, max: max}
	tr := tar.NewReader(cr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return cr.n, nil
		}
		if err != nil {
			return cr.n, err
		}
		if err := applyEntry(tr, h, dir); err != nil {
			return cr.n, err
		}
		if cr.exceeded {
			return cr.n, fmt.Errorf("%w: layer over its %d-byte cap", ErrRefused, max)
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
