package trusted

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// Open opens a regular file or a directory of the tree (fs.FS).
func (t *Tree) Open(name string) (fs.File, error) {
	e, err := t.stat(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	info := fileInfo{e: e, name: path.Base(name)}
	if e.isDir() {
		ents, err := t.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &dirFile{info: info, ents: ents}, nil
	}
	data, err := t.blob(name, e)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &file{info: info, r: bytes.NewReader(data)}, nil
}

// Stat describes a regular file or a directory (fs.StatFS).
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	e, err := t.stat(name)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return fileInfo{e: e, name: path.Base(name)}, nil
}

// ReadDir lists a directory's files and directories, sorted by name as
// git sorts them (fs.ReadDirFS); symbolic links and submodules are left out.
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := t.stat(name)
	if err == nil && !e.isDir() {
		err = fs.ErrInvalid
	}
	var ents []entry
	if err == nil {
		ents, err = t.list(name)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	var out []fs.DirEntry
	for _, e := range ents {
		if e.isFile() || e.isDir() {
			out = append(out, fs.FileInfoToDirEntry(fileInfo{e: e, name: e.name}))
		}
	}
	sortEntries(out)
	return out, nil
}

type fileInfo struct {
	e    entry
	name string
}

func (i fileInfo) Name() string { return i.name }
func (i fileInfo) Size() int64  { return i.e.size }
func (i fileInfo) Mode() fs.FileMode {
	switch {
	case i.e.isDir():
		return fs.ModeDir | 0o555
	case i.e.mode == "100755":
		return 0o555
	}
	return 0o444
}
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return i.e.isDir() }
func (i fileInfo) Sys() any           { return nil }

type file struct {
	info fileInfo
	r    *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *file) Close() error               { return nil }

type dirFile struct {
	info fileInfo
	ents []fs.DirEntry
	off  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}
func (d *dirFile) Close() error { return nil }

// ReadDir returns the next n entries (all that are left when n <= 0).
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	left := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return left, nil
	}
	if len(left) == 0 {
		return nil, io.EOF
	}
	left = left[:min(n, len(left))]
	d.off += len(left)
	return left, nil
}

// sortEntries orders by name, as fs.ReadDir promises (git orders a
// directory as if its name ended in "/").
func sortEntries(ents []fs.DirEntry) {
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}
