package repoindex

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
)

// A cached ancestor that cannot be decoded is not a failure: the commit's
// index is built from scratch, and cached.
func TestOpenBuildsColdWhenAncestorUnreadable(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.go": "package a\n\nfunc Alpha() {}\n"})
	ctx, cache := context.Background(), t.TempDir()
	base, err := Open(ctx, dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(CacheFile(cache, base.Commit), []byte("not a gob"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "b.go", "package a\n\nfunc Beta() {}\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "next")
	x, err := Open(ctx, dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.TermFiles("alpha")) != 1 || len(x.TermFiles("beta")) != 1 {
		t.Fatalf("index of the new commit: alpha %v, beta %v", x.TermFiles("alpha"), x.TermFiles("beta"))
	}
	if _, err := os.Stat(CacheFile(cache, x.Commit)); err != nil {
		t.Fatalf("cold-built index not cached: %v", err)
	}
}

// The files of an update are handed out largest first; a file that is not
// there goes last.
func TestLargestFirst(t *testing.T) {
	dir := t.TempDir()
	paths := []string{"a/small.rs", "b/gone.rs", "big.rs", "mid.rs"}
	for p, n := range map[string]int{"a/small.rs": 10, "big.rs": 3000, "mid.rs": 200} {
		writeFile(t, dir, p, strings.Repeat("x", n))
	}
	got := largestFirst(dir, paths, []int{0, 1, 2, 3})
	if want := []int{2, 3, 0, 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// A submodule is indexed by its path alone, so what its directory holds
// does not make the checkout's index another commit's: it is cached.
func TestSubmoduleStateDoesNotStopCaching(t *testing.T) {
	sub := gitRepo(t, map[string]string{"s.go": "package s\n"})
	dir := gitRepo(t, map[string]string{"a.go": "package a\n"})
	git(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
	git(t, dir, "commit", "-qm", "submodule")
	writeFile(t, dir, "sub/s.go", "package s\n\nfunc Changed() {}\n") // the submodule is dirty
	ctx, cache := context.Background(), t.TempDir()
	x, err := Open(ctx, dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	if i := x.Lookup("sub"); i < 0 || x.Files[i].Size != 0 || len(x.TermFiles("changed")) != 0 {
		t.Fatalf("submodule entry %+v, changed in %v", x.Files[max(i, 0)], x.TermFiles("changed"))
	}
	if _, err := os.Stat(CacheFile(cache, x.Commit)); err != nil {
		t.Fatalf("index not cached: %v", err)
	}
	writeFile(t, dir, "a.go", "package a\n\nfunc Next() {}\n")
	git(t, dir, "commit", "-qam", "next")
	y, err := Open(ctx, dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(CacheFile(cache, y.Commit)); err != nil || len(y.TermFiles("next")) != 1 {
		t.Fatalf("derived index: cached %v, next in %v", err, y.TermFiles("next"))
	}
}
