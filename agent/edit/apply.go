package edit

import (
	"errors"
	"fmt"
	"io"
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
	// Start and End are the 0-based line range [Start, End) the block
	// replaced, in the file as it was just before this block.
	Start, End int
	Err        error
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
		var at [2]int
		br.Rung, at, br.Err = applyOne(fsys, files, b)
		br.Start, br.End = at[0], at[1]
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

func applyOne(fsys FS, files map[string]*doc, b Block) (string, [2]int, error) {
	var none [2]int
	path, err := guards.CheckPath(b.Path)
	if err != nil {
		return "", none, err
	}
	d, ok := files[path]
	if !ok {
		data, err := fsys.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if strings.TrimSpace(b.Search) != "" && len(b.Alts) == 0 {
				return "", none, fmt.Errorf("%s does not exist; to create it, leave SEARCH empty", path)
			}
			d = &doc{}
		case err != nil:
			return "", none, err
		default:
			nd := newDoc(string(data))
			d = &nd
		}
	}
	if len(b.Alts) > 1 {
		return applySplits(files, path, d, b.Alts)
	}
	if strings.TrimSpace(b.Search) == "" {
		if len(d.lines) > 0 {
			return "", none, fmt.Errorf("%s already exists; SEARCH must not be empty for an existing file", path)
		}
		d.create(b.Replace)
		files[path] = d
		return "create", none, nil
	}
	rung, at, err := d.replace(splitText(b.Search), splitText(b.Replace))
	if err != nil {
		return "", none, err
	}
	files[path] = d
	return rung, at, nil
}

// create fills an empty doc with text, every line ending in "\n".
func (d *doc) create(text string) {
	d.lines = splitText(text)
	d.eols = make([]string, len(d.lines))
	for i := range d.eols {
		d.eols[i] = "\n"
	}
}

// applySplits applies a block that reads several ways (a content line looks
// like the divider) only when exactly one reading's SEARCH fits the file.
func applySplits(files map[string]*doc, path string, d *doc, alts []Split) (string, [2]int, error) {
	var fits []int
	var done *doc
	var rung string
	var at [2]int
	for i, a := range alts {
		if strings.TrimSpace(a.Search) == "" { // this reading creates the file: it fits a file that is not there
			if len(d.lines) == 0 {
				c := d.clone()
				c.create(a.Replace)
				fits, done, rung, at = append(fits, i), c, "create", [2]int{}
			}
			continue
		}
		c := d.clone()
		r, p, err := c.replace(splitText(a.Search), splitText(a.Replace))
		if err == nil {
			fits, done, rung, at = append(fits, i), c, r, p
		}
	}
	lines := make([]string, len(alts))
	for i, a := range alts {
		lines[i] = fmt.Sprint(a.Divider)
	}
	switch len(fits) {
	case 1:
		files[path] = done
		return rung + fmt.Sprintf(" (divider at block line %d)", alts[fits[0]].Divider), at, nil
	case 0:
		return "", [2]int{}, fmt.Errorf("block lines %s all look like the ======= divider, and SEARCH matches nothing in the file whichever one is the divider; send this edit as a unified diff", strings.Join(lines, ", "))
	}
	return "", [2]int{}, fmt.Errorf("block lines %s all look like the ======= divider, and SEARCH matches the file in more than one reading; send this edit as a unified diff", strings.Join(lines, ", "))
}

// replace applies one block on the ladder, then again with blank edges
// trimmed, and only then ignoring blank lines inside. It returns the rung
// and the 0-based line range it replaced.
func (d *doc) replace(search, repl []string) (string, [2]int, error) {
	for pass := 0; pass < 3; pass++ {
		if pass == 1 {
			search, repl = trimBlankEdges(search, repl)
			if len(search) == 0 {
				break
			}
		}
		p, t, tw, err := d.locate(search, pass == 2)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return "", [2]int{}, err
		}
		lines, eols, err := d.rewrite(p, t, tw, search, repl)
		if err != nil {
			return "", [2]int{}, err
		}
		d.splice(p.start, p.end-p.start, lines, eols)
		name := t.nameFor(tw)
		if pass == 1 {
			name += "+blank-edges"
		}
		return name, [2]int{p.start, p.end}, nil
	}
	return "", [2]int{}, &notFound{lines: d.lines, search: search}
}

// notFound finds the nearest lines only when its message is read: a block
// read several ways may try, and drop, a reading that matches nothing.
type notFound struct{ lines, search []string }

func (e *notFound) Error() string {
	return "SEARCH matches nothing in the file. The nearest real lines are:\n" + nearest(e.lines, e.search)
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
	// The size first: a file a command grew to a gigabyte is refused
	// unread (no edit applies to it anyway: the guards reject its size).
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes, over the %d bytes an edit may read", p, fi.Size(), MaxFileBytes)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}

// MaxFileBytes is the largest file an edit reads.
const MaxFileBytes = 8 << 20

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
