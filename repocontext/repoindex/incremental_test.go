package repoindex

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// meaning is what an index says, independent of term and literal ids: per
// file its entry, its term counts and its literals.
type meaning struct {
	Files  []File
	Terms  []map[string]uint32
	Lits   []map[string]bool
	AvgLen float64
}

func meaningOf(x *Index) meaning {
	m := meaning{Files: x.Files, AvgLen: x.AvgLen, Terms: make([]map[string]uint32, len(x.Files)), Lits: make([]map[string]bool, len(x.Files))}
	for i := range x.Files {
		m.Terms[i], m.Lits[i] = map[string]uint32{}, map[string]bool{}
	}
	for id, t := range x.Terms {
		for _, p := range x.Post[x.PostAt[id]:x.PostAt[id+1]] {
			m.Terms[p>>8][t] = p & 255
		}
	}
	for li, l := range x.Literals {
		for _, f := range x.LiteralFiles(li) {
			m.Lits[f][l] = true
		}
	}
	return m
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// An index derived from an ancestor's says exactly what a cold build of
// the new commit says: added, modified, deleted, renamed, uncommitted and
// untracked files included, and terms only the deleted file held are gone.
func TestUpdateEqualsColdBuild(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		"calc/calc.go":   "package calc\n\nfunc Add(a, b int) int { return a - b }\n\nvar msg = \"cannot divide by zero here\"\n",
		"calc/div.go":    "package calc\n\nfunc Divide(a, b int) int { return a / b }\n",
		"calc/gone.go":   "package calc\n\nfunc Obsolete() { println(\"only the deleted file says this\") }\n",
		"lib/walk.py":    "class Walker:\n    def walk(self):\n        raise ValueError('the walker fell over badly')\n",
		"docs/README.md": "# Calc\n\nAdds numbers.\n",
		"old/name.go":    "package old\n\nfunc Renamed() {}\n",
	})
	ctx, cache := context.Background(), t.TempDir()
	base, err := Open(ctx, dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("calc/calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Multiply(a, b int) int { return a * b }\n")
	write("src/store.ts", "export class Store {\n  get(k: string) { throw new Error('store key is missing') }\n}\n")
	os.Remove(filepath.Join(dir, "calc/gone.go"))
	os.MkdirAll(filepath.Join(dir, "new"), 0o755)
	git(t, dir, "mv", "old/name.go", "new/name.go")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "second")
	write("lib/walk.py", "class Walker:\n    def run(self):\n        pass\n") // uncommitted
	write("notes.txt", "an untracked note about Divide\n")
	write("calc/staged.go", "package calc\n\nfunc Staged() { println(\"added to the index, not committed\") }\n")
	git(t, dir, "add", "calc/staged.go")
	os.Remove(filepath.Join(dir, "calc/div.go"))                                       // tracked, gone from the worktree
	write("calc/calc.go", "package calc\n\nfunc Add(a, b int) int { return a - b }\n") // committed, then changed back

	got, err := Update(ctx, base, dir, "second")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Build(ctx, dir, "second")
	if err != nil {
		t.Fatal(err)
	}
	if g, w := meaningOf(got), meaningOf(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("derived index differs from a cold build\n got %+v\nwant %+v", g, w)
	}
	if len(got.TermFiles("obsolete")) != 0 || got.Lookup("calc/gone.go") >= 0 || got.Lookup("new/name.go") < 0 {
		t.Fatal("deleted or renamed file left behind")
	}
	terms := append([]string{}, got.Terms...)
	sort.Strings(terms)
	wantTerms := append([]string{}, want.Terms...)
	sort.Strings(wantTerms)
	if !reflect.DeepEqual(terms, wantTerms) {
		t.Fatalf("vocabulary differs: %d terms, cold %d", len(terms), len(wantTerms))
	}
}

// Open along a chain of commits, each derived from the one before it,
// gives at every commit what a cold build of it gives; a checkout with
// uncommitted changes is indexed as it is but its index is not cached
// under the commit.
func TestOpenChainEqualsColdBuild(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		"src/lexer.rs":  "pub struct Lexer { pos: usize }\n\nimpl Lexer {\n    pub fn next_token(&mut self) -> Token { todo!(\"lexing is not done yet\") }\n}\n",
		"src/parser.rs": "fn parse_expr() {}\nfn parse_stmt() {}\n",
		"py/app.py":     "def main():\n    print('starting the application now')\n",
	})
	ctx, cache := context.Background(), t.TempDir()
	steps := []func(){
		func() {},
		func() { writeFile(t, dir, "src/parser.rs", "fn parse_expr() {}\nfn parse_item() { fn nested() {} }\n") },
		func() {
			os.Remove(filepath.Join(dir, "py/app.py"))
			writeFile(t, dir, "src/span.rs", "pub struct Span { start: u32, end: u32 }\n")
		},
		func() { writeFile(t, dir, "src/lexer.rs", "pub enum Token { Ident, Number }\n") },
	}
	for i, step := range steps {
		step()
		if i > 0 {
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-qm", fmt.Sprint("step ", i))
		}
		got, err := Open(ctx, dir, cache)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Build(ctx, dir, got.Commit)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := meaningOf(got), meaningOf(want); !reflect.DeepEqual(g, w) {
			t.Fatalf("step %d: derived index differs from a cold build\n got %+v\nwant %+v", i, g, w)
		}
	}
	writeFile(t, dir, "src/span.rs", "pub struct Span { lo: u32 }\n") // uncommitted
	git(t, dir, "commit", "-qm", "empty", "--allow-empty")
	x, err := Open(ctx, dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.TermFiles("lo")) != 1 {
		t.Fatalf("uncommitted change not indexed: lo in %v", x.TermFiles("lo"))
	}
	if _, err := os.Stat(CacheFile(cache, x.Commit)); err == nil {
		t.Fatal("index of a checkout with uncommitted changes cached under its commit")
	}
}

func writeFile(t *testing.T, dir, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Open on a commit whose ancestor is cached derives the index from it and
// caches the result under the new commit.
func TestOpenDerivesFromCachedAncestor(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.go": "package a\n\nfunc Alpha() {}\n", "b.go": "package a\n\nfunc Beta() {}\n"})
	ctx, cache := context.Background(), t.TempDir()
	base, err := Open(ctx, dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	// Mark a.go's cached entry: only an index derived from this base has it.
	base.Files[base.Lookup("a.go")].Lines = 4242
	if err := base.Save(CacheFile(cache, base.Commit)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "b.go"), []byte("package a\n\nfunc Gamma() {}\n"), 0o644)
	git(t, dir, "commit", "-qam", "next")
	x, err := Open(ctx, dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	if a := x.Lookup("a.go"); a < 0 || x.Files[a].Lines != 4242 || len(x.TermFiles("gamma")) != 1 || len(x.TermFiles("beta")) != 0 {
		t.Fatalf("derived index: a.go %+v, gamma %v, beta %v", x.Files[max(a, 0)], x.TermFiles("gamma"), x.TermFiles("beta"))
	}
	if gobs, _ := filepath.Glob(filepath.Join(cache, x.Commit+"-*.idx")); len(gobs) != 1 {
		t.Fatalf("derived index not cached: %v", gobs)
	}
}
