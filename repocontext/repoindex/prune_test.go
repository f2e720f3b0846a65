package repoindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Saving an index prunes the cache to the most recently used indexes of
// this version; files of other versions go, files Open did not write stay.
func TestOpenPrunesCache(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.go": "package a\n"})
	cache := t.TempDir()
	var want []string
	old := time.Now().Add(-time.Hour)
	for i := 0; i < keepIndexes+3; i++ {
		name := fmt.Sprintf("%040x-v%d.idx", i, Version)
		if err := os.WriteFile(filepath.Join(cache, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		at := old.Add(time.Duration(i) * time.Minute) // the highest i is the most recent
		os.Chtimes(filepath.Join(cache, name), at, at)
		if i >= 4 { // the seven most recent, with the new one eight
			want = append(want, name)
		}
	}
	for _, name := range []string{fmt.Sprintf("%040x-v6.gob", 1), "notes.txt"} {
		os.WriteFile(filepath.Join(cache, name), nil, 0o644)
	}
	want = append(want, "notes.txt")
	x, err := Open(context.Background(), dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, filepath.Base(CacheFile(cache, x.Commit)))
	entries, _ := os.ReadDir(cache)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("cache holds\n%v\nwant\n%v", got, want)
	}
}
