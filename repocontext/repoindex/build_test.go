package repoindex

import (
	"context"
	"os"
	"reflect"
	"testing"
)

// A cold build's postings say, file by file, what indexing that file alone
// says (the assembly, done while the other files are parsed, loses or
// misplaces nothing), and two builds of one checkout are the same index.
func TestBuildPostingsMatchFiles(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		"calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nvar msg = \"cannot divide by zero here\"\n",
		"calc/div.go":  "package calc\n\nvar again = \"cannot divide by zero here\"\n\nfunc Divide() {}\n",
		"lib/walk.py":  "class Walker:\n    def walk(self):\n        raise ValueError('the walker fell over badly')\n",
		"src/lex.rs":   "pub struct Lexer;\nimpl Lexer { fn next(&self) {} }\n",
		"z/last.md":    "The last file says walker too.\n",
	})
	x, err := Build(context.Background(), dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	m := meaningOf(x)
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	ix := &indexer{root: root}
	defer ix.close()
	for i, f := range x.Files {
		want, tc, lits := ix.file(f.Path)
		if !reflect.DeepEqual(f, want) {
			t.Errorf("%s: entry %+v, alone %+v", f.Path, f, want)
		}
		terms, litSet := map[string]uint32{}, map[string]bool{}
		for k, term := range tc.terms {
			terms[term] = uint32(min(tc.tf[k], 255))
		}
		for _, l := range lits {
			litSet[l] = true
		}
		if !reflect.DeepEqual(m.Terms[i], terms) || !reflect.DeepEqual(m.Lits[i], litSet) {
			t.Errorf("%s: postings say %v %v, alone %v %v", f.Path, m.Terms[i], m.Lits[i], terms, litSet)
		}
	}
	y, err := Build(context.Background(), dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	y.Built = x.Built
	if !reflect.DeepEqual(encoded(x), encoded(y)) {
		t.Error("two builds of one checkout differ")
	}
}
