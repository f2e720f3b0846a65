package image

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

const (
	whiteoutPrefix = ".wh."
	opaqueWhiteout = ".wh..wh..opq"
)

// applyEntry writes one tar entry under dir (see unpackImage).
func applyEntry(tr *tar.Reader, h *tar.Header, dir string, written *capWriter) error {
	rel, err := clean(h.Name)
	if err != nil || rel == "" {
		return err // the root itself: nothing to do
	}
	if err := safeParent(dir, rel); err != nil {
		return err
	}
	target := filepath.Join(dir, rel)
	base := path.Base(rel)
	if base == opaqueWhiteout { // the directory's lower contents are gone
		return emptyDir(filepath.Dir(target))
	}
	if name, ok := strings.CutPrefix(base, whiteoutPrefix); ok {
		return os.RemoveAll(filepath.Join(filepath.Dir(target), name))
	}
	mode := os.FileMode(h.Mode) & 0o777 // never setuid, setgid or sticky
	if h.Typeflag != tar.TypeDir {
		if err := os.RemoveAll(target); err != nil { // a later layer replaces it
			return err
		}
	}
	switch h.Typeflag {
	case tar.TypeDir:
		if fi, err := os.Lstat(target); err == nil && !fi.IsDir() {
			if err := os.Remove(target); err != nil {
				return err
			}
		}
		if err := os.Mkdir(target, 0o755); err != nil && !os.IsExist(err) {
			return err
		}
		return os.Chmod(target, mode|0o700) // later layers must be able to write in it
	case tar.TypeReg: // the reader reports the old TypeRegA as TypeReg
		return writeFile(target, tr, mode, written)
	case tar.TypeSymlink:
		// Created as it is, absolute or not: inside the sandbox it resolves
		// against the image's root; here it is never followed.
		return os.Symlink(h.Linkname, target)
	case tar.TypeLink:
		return hardLink(dir, h.Linkname, target)
	case tar.TypeChar, tar.TypeBlock:
		return fmt.Errorf("%w: entry %q is a device node", ErrRefused, h.Name)
	case tar.TypeFifo:
		return nil // a named pipe is of no use in a root file system
	}
	return nil // extended headers and the like carry no file
}

// writeFile writes r to target through written, the layer's count of
// bytes written.
func writeFile(target string, r io.Reader, mode os.FileMode, written *capWriter) error {
	f, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscallNoFollow, mode|0o600)
	if err != nil {
		return err
	}
	written.w = f
	if _, err := io.Copy(written, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chmod(target, mode|0o400)
}

// hardLink links target to another entry of the same image, which must be a
// regular file inside the root, reached without symbolic links.
func hardLink(dir, linkname, target string) error {
	rel, err := clean(linkname)
	if err != nil || rel == "" {
		return fmt.Errorf("%w: hard link %q escapes the root", ErrRefused, linkname)
	}
	if err := safeParent(dir, rel); err != nil {
		return err
	}
	src := filepath.Join(dir, rel)
	fi, err := os.Lstat(src)
	if err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: hard link %q does not name a regular file of the image", ErrRefused, linkname)
	}
	return os.Link(src, target)
}

func emptyDir(d string) error {
	entries, err := os.ReadDir(d)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(d, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
