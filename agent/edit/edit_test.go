package edit

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/warden-bot/warden/outcome"
)

type memFS map[string]string

func (m memFS) ReadFile(p string) ([]byte, error) {
	s, ok := m[p]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return []byte(s), nil
}
func (m memFS) WriteFile(p string, b []byte) error { m[p] = string(b); return nil }

const goFile = "package calc\n\n// Add returns the sum.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"

func block(path, search, replace string) string {
	return path + "\n<<<<<<< SEARCH\n" + search + "=======\n" + replace + ">>>>>>> REPLACE\n"
}

func apply(t *testing.T, files memFS, reply string) (Result, error) {
	t.Helper()
	blocks, err := Parse(reply)
	if err != nil {
		return Result{}, err
	}
	return Apply(files, blocks)
}

func TestLadder(t *testing.T) {
	cases := []struct {
		name, search, replace, rung, want string
	}{
		{"exact", "func Add(a, b int) int {\n\treturn a - b\n", "func Add(a, b int) int {\n\treturn a + b\n", "exact", "\treturn a + b\n}\n\nfunc Sub"},
		{"trailing spaces", "func Add(a, b int) int {   \n\treturn a - b  \n", "func Add(a, b int) int {\n\treturn a + b\n", "whitespace", "\treturn a + b\n}\n\nfunc Sub"},
		{"spaces for tabs", "func Add(a, b int) int {\n    return a - b\n", "func Add(a, b int) int {\n    return a + b\n", "indentation", "func Add(a, b int) int {\n\treturn a + b\n}"},
		{"blank edges", "\n\nfunc Add(a, b int) int {\n\treturn a - b\n\n", "func Add(a, b int) int {\n\treturn a + b\n", "exact+blank-edges", "\treturn a + b\n}\n\nfunc Sub"},
	}
	for _, tc := range cases {
		files := memFS{"calc.go": goFile}
		res, err := apply(t, files, block("calc.go", tc.search, tc.replace))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if res.Blocks[0].Rung != tc.rung || !strings.Contains(files["calc.go"], tc.want) || !strings.Contains(files["calc.go"], "func Sub(a, b int) int {\n\treturn a - b") {
			t.Errorf("%s: rung %s, file:\n%s", tc.name, res.Blocks[0].Rung, files["calc.go"])
		}
	}
}

func TestAmbiguousAndAbsentAreRefused(t *testing.T) {
	files := memFS{"calc.go": goFile}
	_, err := apply(t, files, block("calc.go", "\treturn a - b\n", "\treturn 0\n"))
	if outcome.ClassOf(err) != outcome.ContractFailure || !strings.Contains(err.Error(), "matches 2 places") {
		t.Fatalf("ambiguous: %v", err)
	}
	_, err = apply(t, files, block("calc.go", "func Mul(a, b int) int {\n\treturn a * b\n", "x\n"))
	if outcome.ClassOf(err) != outcome.ContractFailure || !strings.Contains(err.Error(), "nearest real lines") || !strings.Contains(err.Error(), "func Add") {
		t.Fatalf("absent: %v", err)
	}
	if files["calc.go"] != goFile {
		t.Fatal("a refused edit changed the file")
	}
}

// One bad block: nothing is written.
func TestAtomic(t *testing.T) {
	files := memFS{"calc.go": goFile, "b.go": "package b\n"}
	reply := block("b.go", "package b\n", "package b // ok\n") + block("calc.go", "nope\n", "x\n")
	if _, err := apply(t, files, reply); err == nil {
		t.Fatal("applied")
	}
	if files["b.go"] != "package b\n" {
		t.Fatal("the good block was written although another failed")
	}
}

func TestMultipleBlocksNewFileCRLFAndFences(t *testing.T) {
	files := memFS{"win.txt": "one\r\ntwo\r\nthree\r\n"}
	reply := "Here you go:\n```go\n`win.txt`\n<<<<<<< SEARCH\none\n=======\nONE\n>>>>>>> REPLACE\n```\nand\n**win.txt**\n<<<<<<< SEARCH\nthree\n=======\nTHREE\n>>>>>>> REPLACE\n" +
		block("new/dir/file.go", "", "package dir\n")
	res, err := apply(t, files, strings.ReplaceAll(reply, "\n", "\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if files["win.txt"] != "ONE\r\ntwo\r\nTHREE\r\n" || files["new/dir/file.go"] != "package dir\n" || len(res.Files) != 2 {
		t.Fatalf("files = %q", files)
	}
}

func TestPathsAreVetted(t *testing.T) {
	for _, p := range []string{"../x.go", ".git/config", "/etc/passwd"} {
		_, err := apply(t, memFS{}, block(p, "", "x\n"))
		if err == nil {
			t.Errorf("%s accepted", p)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, reply := range []string{
		"<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
		"a.go\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n",
		"a.go\n<<<<<<< SEARCH\nx\n=======\ny\n",
	} {
		_, err := Parse(reply)
		var oe *outcome.Error
		if !errors.As(err, &oe) || oe.Class != outcome.ContractFailure {
			t.Errorf("%q: %v", reply, err)
		}
	}
	if b, err := Parse("no blocks at all"); err != nil || len(b) != 0 {
		t.Fatal("prose without blocks must parse to nothing")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(block("a.go", "x\n", "y\n"))
	f.Add("a\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE")
	f.Fuzz(func(t *testing.T, s string) {
		blocks, err := Parse(s)
		if err == nil {
			_, _ = Apply(memFS{"a.go": "x\n"}, blocks)
		}
	})
}
