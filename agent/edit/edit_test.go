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
	f.Add("--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+z\n")
	f.Fuzz(func(t *testing.T, s string) {
		blocks, err := Parse(s)
		if err == nil {
			_, _ = Apply(memFS{"a.go": "x\n"}, blocks)
		}
	})
}

func TestUnifiedDiffs(t *testing.T) {
	files := memFS{"calc.go": goFile}
	reply := "Here is the change:\n```diff\ndiff --git a/calc.go b/calc.go\nindex 1..2 100644\n--- a/calc.go\t2024-01-01\n+++ b/calc.go\n" +
		"@@ -3,4 +3,4 @@ package calc\n // Add returns the sum.\n func Add(a, b int) int {\n-\treturn a - b\n+\treturn a + b\n }\n" +
		"@@ -99,3 +99,4 @@\n\n func Sub(a, b int) int {\n+\t// Sub subtracts.\n \treturn a - b\n\\ No newline at end of file\n```\n" +
		"--- /dev/null\n+++ b/new/doc.go\n@@ -0,0 +1,2 @@\n+// Package dir is new.\n+package dir\n\nThat is all.\n"
	blocks, err := Parse(reply)
	if err != nil || len(blocks) != 3 || blocks[2].Index != 3 || blocks[2].Search != "" {
		t.Fatalf("blocks %+v, %v", blocks, err)
	}
	if blocks[1].Search != "\nfunc Sub(a, b int) int {\n\treturn a - b\n" {
		t.Fatalf("a bare empty line inside a hunk is blank context: %q", blocks[1].Search)
	}
	if _, err := Apply(files, blocks); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(goFile, "a - b", "a + b", 1), "Sub(a, b int) int {\n", "Sub(a, b int) int {\n\t// Sub subtracts.\n", 1)
	if files["calc.go"] != want || files["new/doc.go"] != "// Package dir is new.\npackage dir\n" {
		t.Fatalf("files = %q", files)
	}
}

func TestUnifiedDiffErrors(t *testing.T) {
	for _, reply := range []string{
		"--- a/x.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-package x\n",
		"--- a/x.go\n+++ b/x.go\nno hunk\n",
	} {
		if _, err := Parse(reply); outcome.ClassOf(err) != outcome.ContractFailure {
			t.Errorf("%q: %v", reply, err)
		}
	}
	blocks, err := Parse("--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n select 1;\n")
	if err != nil || len(blocks) != 1 || blocks[0].Search != "-- old comment\nselect 1;\n" || blocks[0].Replace != "++ new comment\nselect 1;\n" {
		t.Fatalf("hunk lines that look like a header: %+v, %v", blocks, err)
	}
	// A hunk whose context is ambiguous is refused like a block: line numbers do not choose.
	blocks, err = Parse("--- a/calc.go\n+++ b/calc.go\n@@ -9,1 +9,1 @@\n-\treturn a - b\n+\treturn 0\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(memFS{"calc.go": goFile}, blocks); err == nil || !strings.Contains(err.Error(), "matches 2 places") {
		t.Fatalf("ambiguous hunk: %v", err)
	}
}

// The whitespace and indentation rungs write the lines the model kept as the
// file has them; a tab may be read as 8 or 2 columns.
func TestLadderKeepsFileBytes(t *testing.T) {
	src := "package p\n\nfunc f() {\n\ts := `\n    raw, four spaces\n`\n\tif s != \"\" {\n\t\treturn\n\t}\n}\n"
	cases := []struct{ name, search, replace, rung, want string }{
		{"trailing blanks in REPLACE too", "\tif s != \"\" {  \n\t\treturn \n", "\tif s != \"\" {  \n\t\tprintln(s)\n\t\treturn \n", "whitespace",
			"\tif s != \"\" {\n\t\tprintln(s)\n\t\treturn\n\t}"},
		{"raw string kept under a shift", "\t\ts := `\n\t    raw, four spaces\n\t`\n\t\tif s != \"\" {\n", "\t\ts := `\n\t    raw, four spaces\n\t`\n\t\tif s == \"\" {\n", "indentation",
			"\ts := `\n    raw, four spaces\n`\n\tif s == \"\" {\n"},
		{"tabs as 8 spaces", "        if s != \"\" {\n                return\n", "        if s != \"\" {\n                println(s)\n                return\n", "indentation (tab=8)",
			"\tif s != \"\" {\n\t\tprintln(s)\n\t\treturn\n"},
		{"tabs as 2 spaces", "  if s != \"\" {\n    return\n", "  if s != \"\" {\n    return // done\n", "indentation (tab=2)",
			"\tif s != \"\" {\n\t\treturn // done\n"},
	}
	for _, tc := range cases {
		files := memFS{"p.go": src}
		res, err := apply(t, files, block("p.go", tc.search, tc.replace))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if res.Blocks[0].Rung != tc.rung || !strings.Contains(files["p.go"], tc.want) {
			t.Errorf("%s: rung %s, file:\n%s", tc.name, res.Blocks[0].Rung, files["p.go"])
		}
	}
}
