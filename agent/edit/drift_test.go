package edit

import (
	"strings"
	"testing"
)

// Blank lines added or dropped inside SEARCH: matched ignoring blank lines,
// one place only, and the file keeps its own blank lines where REPLACE kept
// the lines around them.
func TestBlankLinesInsideSearch(t *testing.T) {
	src := "package p\n\nfunc f() {\n\ta()\n\n\tb()\n\tc()\n}\n"
	cases := []struct{ name, search, replace, want, rung string }{
		{"dropped", "\ta()\n\tb()\n\tc()\n", "\ta()\n\tb()\n\tC()\n", strings.Replace(src, "c()", "C()", 1), "blank-lines"},
		{"added", "\ta()\n\n\tb()\n\n\tc()\n", "\ta()\n\n\tB()\n\n\tc()\n", strings.Replace(src, "b()", "B()", 1), "blank-lines"},
		{"deleted next to the blank", "\ta()\n\tb()\n\tc()\n", "\ta()\n\tc()\n", strings.Replace(src, "\tb()\n", "", 1), "blank-lines"},
		{"changed below the blank", "\ta()\n\tb()\n", "\ta()\n\tb(1)\n", strings.Replace(src, "b()", "b(1)", 1), "blank-lines"},
		{"with spaces for tabs", "    a()\n    b()\n", "    a()\n    b(1)\n", strings.Replace(src, "b()", "b(1)", 1), "blank-lines+indentation"},
	}
	for _, tc := range cases {
		files := memFS{"p.go": src}
		res, err := apply(t, files, block("p.go", tc.search, tc.replace))
		if err != nil || files["p.go"] != tc.want || res.Blocks[0].Rung != tc.rung {
			t.Errorf("%s: err %v, blocks %+v, file %q", tc.name, err, res.Blocks, files["p.go"])
		}
	}
	// A new line between two kept lines with the file's blank line between
	// them could go on either side of it: refused.
	files := memFS{"p.go": src}
	if _, err := apply(t, files, block("p.go", "\ta()\n\tb()\n", "\ta()\n\tx()\n\tb()\n")); err == nil || files["p.go"] != src {
		t.Fatalf("insertion beside a left-out blank line: err %v, file %q", err, files["p.go"])
	}
	// Ignoring blank lines still needs one place.
	dup := src + "\nfunc g() {\n\ta()\n\tb()\n}\n"
	files = memFS{"p.go": strings.Replace(dup, "\ta()\n\n\tb()\n\tc()", "\ta()\n\n\tb()", 1)}
	if _, err := apply(t, files, block("p.go", "\ta()\n\n\n\tb()\n", "\ta()\n\tB()\n")); err == nil || !strings.Contains(err.Error(), "matches 2 places") {
		t.Fatalf("two places ignoring blank lines: %v", err)
	}
}

// Alignment retyped: runs of inner blanks compare as one; kept lines keep
// the file's alignment and a changed line inherits it.
func TestAlignmentRetyped(t *testing.T) {
	src := "package p\n\ntype T struct {\n\tName    string // the name\n\tAge     int    // years\n\tAddress string\n}\n"
	files := memFS{"p.go": src}
	res, err := apply(t, files, block("p.go", "\tName string // the name\n\tAge int // years\n", "\tName string // the name\n\tYears int // years\n"))
	want := strings.Replace(src, "\tAge     int", "\tYears     int", 1)
	if err != nil || files["p.go"] != want || res.Blocks[0].Rung != "alignment" {
		t.Fatalf("err %v, blocks %+v, file %q", err, res.Blocks, files["p.go"])
	}
	dup := src + "\ntype U struct {\n\tName  string // the name\n\tAge   int    // years\n}\n"
	files = memFS{"p.go": dup}
	if _, err := apply(t, files, block("p.go", "\tName string // the name\n\tAge int // years\n", "\tName string\n")); err == nil || !strings.Contains(err.Error(), "matches 2 places") {
		t.Fatalf("two places when alignment is ignored: %v", err)
	}
}

// A model that pads SEARCH lines with trailing blanks pads its new lines
// too: they are written without, as the file writes its lines.
func TestTrailingDriftOnNewLines(t *testing.T) {
	files := memFS{"calc.go": goFile}
	if _, err := apply(t, files, block("calc.go", "func Add(a, b int) int {  \n\treturn a - b \n", "func Add(a, b int) int {  \n\t// sum  \n\treturn a + b \n")); err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(goFile, "\treturn a - b\n}\n\nfunc Sub", "\t// sum\n\treturn a + b\n}\n\nfunc Sub", 1); files["calc.go"] != want {
		t.Fatalf("file %q", files["calc.go"])
	}
}
