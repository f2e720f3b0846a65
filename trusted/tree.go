package trusted

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"
)

// Git runs one read-only git command (ls-tree, cat-file) on the repository
// whose object store holds the commit, and returns its standard output.
type Git func(ctx context.Context, args ...string) (string, error)

// ErrSymlink is a tree entry that is a symbolic link: it is never followed,
// so to every reader it is absent.
var ErrSymlink = fmt.Errorf("a symbolic link (never followed): %w", fs.ErrNotExist)

// ErrNotFile is a tree entry that is neither a file nor a directory (a
// submodule): absent to every reader.
var ErrNotFile = fmt.Errorf("not a file or directory: %w", fs.ErrNotExist)

// maxBlob bounds one file read from the tree: the inputs are small, and an
// enormous one must not cost the worker its memory.
const maxBlob = 4 << 20

// entry is one line of `git ls-tree -l`.
type entry struct {
	mode, typ, sha, name string
	size                 int64
}

func (e entry) isFile() bool { return e.typ == "blob" && (e.mode == "100644" || e.mode == "100755") }
func (e entry) isDir() bool  { return e.typ == "tree" && e.mode == "040000" }

// Tree is one commit's tree read from git's objects, never from a checkout.
// It is an fs.FS of the commit's regular files and directories only: a
// symbolic link or a submodule is absent (ErrSymlink, ErrNotFile). It
// lists directories as they are asked for and keeps what it listed.
type Tree struct {
	ctx    context.Context // the read's; a Tree lives as long as one Read
	git    Git
	commit string
	mu     sync.Mutex
	dirs   map[string][]entry
}

// OpenTree lists commit's top directory; an unknown commit is an error.
func OpenTree(ctx context.Context, git Git, commit string) (*Tree, error) {
	if commit == "" || strings.HasPrefix(commit, "-") {
		return nil, fmt.Errorf("trusted tree: bad commit %q", commit)
	}
	t := &Tree{ctx: ctx, git: git, commit: commit, dirs: map[string][]entry{}}
	if _, err := t.list("."); err != nil {
		return nil, err
	}
	return t, nil
}

// Commit is the commit the tree is of.
func (t *Tree) Commit() string { return t.commit }

// list returns dir's entries, walking from the top through tree entries
// only: a path through a symbolic link is not found.
func (t *Tree) list(dir string) ([]entry, error) {
	t.mu.Lock()
	ents, ok := t.dirs[dir]
	t.mu.Unlock()
	if ok {
		return ents, nil
	}
	object := t.commit + "^{tree}"
	if dir != "." {
		e, err := t.lookup(dir)
		if err != nil {
			return nil, err
		}
		if !e.isDir() {
			return nil, fmt.Errorf("%s: not a directory: %w", dir, fs.ErrNotExist)
		}
		object = e.sha
	}
	out, err := t.git(t.ctx, "ls-tree", "-z", "-l", "--full-tree", object)
	if err != nil {
		return nil, fmt.Errorf("list %s at %s: %w", dir, t.commit, err)
	}
	if ents, err = parseLsTree(out); err != nil {
		return nil, fmt.Errorf("list %s at %s: %w", dir, t.commit, err)
	}
	t.mu.Lock()
	t.dirs[dir] = ents
	t.mu.Unlock()
	return ents, nil
}

// lookup finds name's own entry, whatever its kind.
func (t *Tree) lookup(name string) (entry, error) {
	if !fs.ValidPath(name) {
		return entry{}, fs.ErrInvalid
	}
	if name == "." {
		return entry{mode: "040000", typ: "tree", name: "."}, nil
	}
	ents, err := t.list(path.Dir(name))
	if err != nil {
		return entry{}, err
	}
	base := path.Base(name)
	for _, e := range ents {
		if e.name == base {
			return e, nil
		}
	}
	return entry{}, fs.ErrNotExist
}

// stat finds name as a file or a directory; any other kind is absent.
func (t *Tree) stat(name string) (entry, error) {
	e, err := t.lookup(name)
	switch {
	case err != nil:
		return entry{}, err
	case e.mode == "120000":
		return entry{}, ErrSymlink
	case !e.isFile() && !e.isDir():
		return entry{}, ErrNotFile
	}
	return e, nil
}

// parseLsTree reads `git ls-tree -z -l`: "mode type sha size\tname\0".
func parseLsTree(out string) ([]entry, error) {
	var ents []entry
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		meta, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("unexpected ls-tree line %q", rec)
		}
		e := entry{mode: f[0], typ: f[1], sha: f[2], name: name}
		if f[3] != "-" {
			n, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("unexpected ls-tree size %q", f[3])
			}
			e.size = n
		}
		ents = append(ents, e)
	}
	return ents, nil
}

// blob reads a file entry's content.
func (t *Tree) blob(name string, e entry) ([]byte, error) {
	if e.size > maxBlob {
		return nil, fmt.Errorf("%s at %s: %d bytes, over the %d a trusted input may have", name, t.commit, e.size, maxBlob)
	}
	// cat-file blob: the raw object; no textconv or filter runs.
	out, err := t.git(t.ctx, "cat-file", "blob", e.sha)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", name, t.commit, err)
	}
	return []byte(out), nil
}

// ReadFile reads a regular file of the tree (fs.ReadFileFS).
func (t *Tree) ReadFile(name string) ([]byte, error) {
	e, err := t.stat(name)
	if err == nil && !e.isFile() {
		err = fmt.Errorf("a directory: %w", fs.ErrInvalid)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return t.blob(name, e)
}

// isAbsent reports an error that means the file is not there to read.
func isAbsent(err error) bool { return errors.Is(err, fs.ErrNotExist) }
