package edit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/warden-bot/warden/guards"
	"github.com/warden-bot/warden/outcome"
)

// FS is where edits read and write; DirFS confines it to a worktree.
type FS interface {
	ReadFile(path string) ([]byte, error)
	WriteFile(path string, data []byte) error
}

// BlockResult says what happened to one block.
type BlockResult struct {
	Index   int
	Path    string
	Rung    string
	Applied bool
	Err     error
}

// Result lists the files written and each block's fate.
type Result struct {
	Files  []string
	Blocks []BlockResult
}

// Apply computes every block in memory, in order, and writes nothing unless
// all of them apply. A failure is a contract_failure whose message tells the
// model, per block, what applied, what did not, and the nearest real lines.
func Apply(fsys FS, blocks []Block) (Result, error) {
	var res Result
	files := map[string]*doc{}
	failed := false
	for _, b := range blocks {
		br := BlockResult{Index: b.Index, Path: b.Path}
		br.Rung, br.Err = applyOne(fsys, files, b)
		br.Applied = br.Err == nil
		failed = failed || !br.Applied
		res.Blocks = append(res.Blocks, br)
	}
	if failed {
		return res, &outcome.Error{Class: outcome.ContractFailure, Stage: "Implement", Msg: feedback(res)}
	}
	for p, d := range files {
		if err := fsys.WriteFile(p, []byte(d.String())); err != nil {
			return res, fmt.Errorf("write %s: %w", p, err)
		}
		res.Files = append(res.Files, p)
	}
	sort.Strings(res.Files)
	return res, nil
}

func applyOne(fsys FS, files map[string]*doc, b Block) (string, error) {
	path, err := guards.CheckPath(b.Path)
	if err != nil {
		return "", err
	}
	d, ok := files[path]
	if !ok {
		data, err := fsys.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if strings.TrimSpace(b.Search) != "" {
				return "", fmt.Errorf("%s does not exist; to create it, leave SEARCH empty", path)
			}
			nd := newDoc("")
			nd.finalEOL = true
			d = &nd
		case err != nil:
			return "", err
		default:
			nd := newDoc(string(data))
			d = &nd
		}
	}
	if strings.TrimSpace(b.Search) == "" {
		if len(d.lines) > 0 {
			return "", fmt.Errorf("%s already exists; SEARCH must not be empty for an existing file", path)
		}
		d.lines = splitText(b.Replace)
		files[path] = d
		return "create", nil
	}
	rung, err := replace(d, splitText(b.Search), splitText(b.Replace))
	if err != nil {
		return "", err
	}
	files[path] = d
	return rung, nil
}

// replace applies one block on the ladder, then again with blank edges trimmed.
func replace(d *doc, search, repl []string) (string, error) {
	for pass := 0; pass < 2; pass++ {
		if pass == 1 {
			search, repl = trimBlankEdges(search, repl)
			if len(search) == 0 {
				break
			}
		}
		at, r, ok := find(*d, search)
		if !ok {
			continue
		}
		if len(at) > 1 {
			return "", fmt.Errorf("SEARCH matches %d places (lines %s); add surrounding lines so it matches exactly one", len(at), lineList(at))
		}
		i := at[0]
		fitted := r.fit(d.lines[i:i+len(search)], search, repl)
		d.lines = append(append(append([]string{}, d.lines[:i]...), fitted...), d.lines[i+len(search):]...)
		name := r.name
		if pass == 1 {
			name += "+blank-edges"
		}
		return name, nil
	}
	return "", &notFound{near: nearest(d.lines, search)}
}

type notFound struct{ near string }

func (e *notFound) Error() string {
	return "SEARCH matches nothing in the file. The nearest real lines are:\n" + e.near
}

func lineList(at []int) string {
	parts := make([]string, 0, len(at))
	for _, i := range at[:min(len(at), 5)] {
		parts = append(parts, fmt.Sprint(i+1))
	}
	return strings.Join(parts, ", ")
}

// DirFS confines reads and writes to root: every path is vetted and no
// symlink may lead outside.
type DirFS string

// ReadFile implements FS.
func (d DirFS) ReadFile(p string) ([]byte, error) {
	abs, err := guards.ResolveInside(string(d), p, guards.OSLinker{})
	if err != nil {
		return nil, err
	}
	return os.ReadFile(abs)
}

// WriteFile implements FS.
func (d DirFS) WriteFile(p string, data []byte) error {
	abs, err := guards.ResolveInside(string(d), p, guards.OSLinker{})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(abs); err == nil {
		mode = fi.Mode().Perm()
	}
	return os.WriteFile(abs, data, mode)
}
