package edit

import (
	"strings"
	"testing"
)

// FuzzApply is issue #19's property: whatever the file and the reply,
// applying a block either refuses (and writes nothing) or leaves every line
// outside the region it reports byte for byte as it was — endings included.
func FuzzApply(f *testing.F) {
	f.Add("package a\r\n\nvar x = 1\n", block("a.go", "var x = 1\n", "var x = 2\n"))
	f.Add("# Tool\n\nUsage\n=====\n\nRun it.\n", block("a.go", "Usage\n=====\n", "How to use\n==========\n"))
	f.Add("func f() {\n\tif ok {\n\t\treturn\n\t}\n}\n", block("a.go", "                return\n", "                if debug {\n                        return\n                }\n"))
	f.Add("func f() {\n\tg()\t\n\th()\n\tg()\n}\n", block("a.go", "\tg()\n\th()\n\tg()\n", "\tg()\n\tH()\n\tg()\n"))
	f.Add("a\n\nb\nc\n\nd", block("a.go", "a\nb\nc\nd\n", "a\nB\nc\nX\nd\n"))
	f.Add("type T struct {\n\tA    int // a\n\tBcd  int\n}\n", block("a.go", "\tA int // a\n\tBcd int\n", "\tAx int // a\n\tBcd int\n"))
	f.Add("x\n", "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n")
	f.Fuzz(func(t *testing.T, file, reply string) {
		blocks, err := Parse(reply)
		if err != nil {
			return
		}
		for _, b := range blocks {
			b.Path = "a.go"
			files := memFS{"a.go": file}
			res, err := Apply(files, []Block{b})
			if err != nil {
				if files["a.go"] != file {
					t.Fatalf("a refused block changed the file: %q -> %q", file, files["a.go"])
				}
				continue
			}
			br := res.Blocks[0]
			if br.Rung == "create" {
				continue
			}
			checkOutside(t, file, files["a.go"], br.Start, br.End)
			file = files["a.go"]
		}
	})
}

// checkOutside: lines before start and after end (0-based, [start, end)
// of the old file) are the original lines, with their endings.
func checkOutside(t *testing.T, before, after string, start, end int) {
	t.Helper()
	old, nw := strings.SplitAfter(before, "\n"), strings.SplitAfter(after, "\n")
	old, nw = dropEmptyTail(old), dropEmptyTail(nw)
	if start < 0 || end < start || end > len(old) {
		t.Fatalf("region [%d, %d) outside a %d-line file", start, end, len(old))
	}
	tail := len(old) - end
	if len(nw) < start+tail {
		t.Fatalf("the result has %d lines; %d before and %d after the region must stay", len(nw), start, tail)
	}
	for i := 0; i < start; i++ {
		if nw[i] != old[i] {
			t.Fatalf("line %d before the region changed: %q -> %q", i+1, old[i], nw[i])
		}
	}
	for i := 1; i <= tail; i++ {
		o, n := old[len(old)-i], nw[len(nw)-i]
		if o != n {
			t.Fatalf("line %d after the region changed: %q -> %q", len(old)-i+1, o, n)
		}
	}
}

func dropEmptyTail(lines []string) []string {
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	return lines
}
