package edit

import (
	"strings"
	"testing"
)

// The five silent corruptions of issue #19: each once applied, reported
// success and left a wrong file.

// A content line that looks like the divider: a block that reads two ways
// whose SEARCH fits the file either way is refused, with the reason; one
// that fits only one way is applied that way.
func TestDividerLookingContent(t *testing.T) {
	const md = "# Tool\n\nUsage\n=====\n\nRun it.\n"
	files := memFS{"doc.md": md}
	_, err := apply(t, files, block("doc.md", "Usage\n=====\n", "How to use\n==========\n"))
	if err == nil || !strings.Contains(err.Error(), "look like the ======= divider") || files["doc.md"] != md {
		t.Fatalf("two readings that both fit: err %v, file %q", err, files["doc.md"])
	}
	files = memFS{"doc.md": "Title\n\ntext\n"}
	if _, err := apply(t, files, block("doc.md", "Title\n", "Title\n=====\n")); err != nil || files["doc.md"] != "Title\n=====\n\ntext\n" {
		t.Fatalf("underline added in REPLACE: err %v, file %q", err, files["doc.md"])
	}
	py := "def f():\n    \"\"\"Run.\n\n    =====\n    Notes\n    \"\"\"\n    return 1\n"
	files = memFS{"m.py": py}
	// A new Markdown file with setext headings: only the empty SEARCH reading fits.
	files = memFS{}
	if _, err := apply(t, files, block("new.md", "", "Title\n=====\n\nSub\n=======\n")); err != nil || files["new.md"] != "Title\n=====\n\nSub\n=======\n" {
		t.Fatalf("new file with underlines: err %v, files %q", err, files)
	}
	files = memFS{"m.py": py}
	// Read at the rule, SEARCH would be empty: only the other reading fits.
	_, err = apply(t, files, block("m.py", "    =====\n    Notes\n", "    =====\n    More notes\n"))
	if err != nil || files["m.py"] != strings.Replace(py, "Notes", "More notes", 1) {
		t.Fatalf("docstring rule first in SEARCH: err %v, file %q", err, files["m.py"])
	}
}

// Every line the edit does not touch keeps its ending; new lines take the
// ending of the line before them.
func TestLineEndingsStayPerLine(t *testing.T) {
	files := memFS{"a.go": "package a\r\n\nvar x = 1\n"}
	if _, err := apply(t, files, block("a.go", "var x = 1\n", "var x = 2\n")); err != nil || files["a.go"] != "package a\r\n\nvar x = 2\n" {
		t.Fatalf("err %v, file %q", err, files["a.go"])
	}
	files = memFS{"b.txt": "a\r\nb\r\nc\nd"}
	if _, err := apply(t, files, block("b.txt", "b\nc\nd\n", "b\nB2\nc\nd\n")); err != nil || files["b.txt"] != "a\r\nb\r\nB2\r\nc\nd" {
		t.Fatalf("err %v, file %q", err, files["b.txt"])
	}
}

// A new indentation level is one level of the file's own unit, not the
// model's columns shifted by a reading of the tab.
func TestNewLevelUsesFileUnit(t *testing.T) {
	files := memFS{"f.go": "func f() {\n\tif ok {\n\t\treturn\n\t}\n}\n"}
	sp := func(n int) string { return strings.Repeat(" ", n) }
	reply := block("f.go", sp(16)+"return\n", sp(16)+"if debug {\n"+sp(24)+"return\n"+sp(16)+"}\n")
	if _, err := apply(t, files, reply); err != nil || files["f.go"] != "func f() {\n\tif ok {\n\t\tif debug {\n\t\t\treturn\n\t\t}\n\t}\n}\n" {
		t.Fatalf("tabs: err %v, file %q", err, files["f.go"])
	}
	files = memFS{"c.yaml": "root:\n  key: 1\n  other: 2\n"}
	if _, err := apply(t, files, block("c.yaml", sp(4)+"key: 1\n", sp(4)+"key:\n"+sp(8)+"sub: 1\n")); err != nil || files["c.yaml"] != "root:\n  key:\n    sub: 1\n  other: 2\n" {
		t.Fatalf("2-space YAML: err %v, file %q", err, files["c.yaml"])
	}
}

// Kept lines keep their own bytes, position by position, even when SEARCH
// repeats a line.
func TestRepeatedKeptLinesKeepTheirOwnBytes(t *testing.T) {
	files := memFS{"f.go": "func f() {\n\tg()\t\n\th()\n\tg()\n}\n"}
	if _, err := apply(t, files, block("f.go", "\tg()\n\th()\n\tg()\n", "\tg()\n\tH()\n\tg()\n")); err != nil || files["f.go"] != "func f() {\n\tg()\t\n\tH()\n\tg()\n}\n" {
		t.Fatalf("err %v, file %q", err, files["f.go"])
	}
}

// Two readings of a tab that find two places: ambiguous, refused.
func TestRungsThatDisagreeAreRefused(t *testing.T) {
	src := "package p\n\nfunc a() {\n\tfoo(x,\n\t\t\ty)\n}\n\nfunc b() {\n\tfoo(x,\n\t\ty)\n}\n"
	files := memFS{"p.go": src}
	_, err := apply(t, files, block("p.go", "        foo(x,\n                y)\n", "        foo(x,\n                z)\n"))
	if err == nil || !strings.Contains(err.Error(), "matches 2 places") || files["p.go"] != src {
		t.Fatalf("err %v, file %q", err, files["p.go"])
	}
}
