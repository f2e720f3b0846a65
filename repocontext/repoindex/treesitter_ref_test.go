package repoindex

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// walkDefs is the definitions by walking the tree node by node: the
// reference queryDefs is checked against (TestQueryDefsEqualWalk).
func walkDefs(g *sitter.Language, src []byte) []Def {
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(g)
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil || tree == nil {
		return nil
	}
	defer tree.Close()
	var defs []Def
	walk(tree.RootNode(), src, "", &defs, 0)
	return defs
}

func walk(n *sitter.Node, src []byte, parent string, defs *[]Def, depth int) {
	if depth > 60 {
		return
	}
	name := parent
	if kind, ok := defKinds[n.Type()]; ok {
		if d, ok := defOf(n, kind, src, parent); ok {
			*defs = append(*defs, d)
			name = d.Name
		}
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		walk(n.NamedChild(i), src, name, defs, depth+1)
	}
}

// samples nest definitions the ways the grammars allow: methods in
// classes in functions, impl blocks, arrow functions, inner classes.
var samples = map[string]string{
	"a.py":   "import os\n\nclass Outer:\n    x = 1\n    def method(self):\n        def inner():\n            class Local:\n                def deep(self): pass\n            return Local\n        return inner\n\n@decorator\ndef top(a, b):\n    return lambda: a\n\nasync def run():\n    pass\n",
	"a.rs":   "mod m {\n    pub struct S { a: u8 }\n    impl S {\n        pub fn new() -> Self { fn helper() {} S { a: 0 } }\n    }\n    trait T { fn t(&self); }\n    enum E { A, B }\n    macro_rules! mac { () => {} }\n}\nfn main() { let c = |x: u8| x; }\n",
	"a.ts":   "export class Store<T> {\n  get(k: string): T { const f = () => 1; return null as any }\n  static make() { return new Store() }\n}\ninterface I { a: number }\ntype A = string\nenum E { X }\nexport const load = async () => { function inner() {} }\nfunction* gen() {}\nabstract class B {}\n",
	"a.js":   "class A { m() { const g = function () {}; } }\nconst h = (x) => x\nfunction f() { return class { n() {} } }\n",
	"A.java": "package p;\npublic class A {\n  public A() {}\n  void run() { Runnable r = new Runnable() { public void run() {} }; }\n  interface I { void i(); }\n  enum E { X; void e() {} }\n  record R(int a) {}\n}\n",
}

// The query finds the same definitions, with the same parents and ranges,
// as a node-by-node walk. WARDEN_TEST_DEFS_DIR names a
// checkout whose every parsed file is compared too.
func TestQueryDefsEqualWalk(t *testing.T) {
	files := map[string][]byte{}
	for p, s := range samples {
		files[p] = []byte(s)
	}
	if dir := os.Getenv("WARDEN_TEST_DEFS_DIR"); dir != "" {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(p, "/.git/") || grammar(Language(p)) == nil {
				return nil
			}
			if src, err := os.ReadFile(p); err == nil && len(src) <= maxParsed {
				files[p] = src
			}
			return nil
		})
	}
	for p, src := range files {
		want := walkDefs(grammar(Language(p)), src)
		if got := otherDefs(Language(p), src); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: query defs\n%+v\nwalk defs\n%+v", p, got, want)
		}
	}
	t.Logf("%d files compared", len(files))
}
