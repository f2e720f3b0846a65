package repoindex

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// keepIndexes is how many indexes a repository's cache keeps: a new
// commit's index is derived from a recent one, and each is about 10 MiB
// per 10,000 files, one per commit of an active repository.
const keepIndexes = 8

// cacheName matches the files Open writes, of any version (gob up to 6).
var cacheName = regexp.MustCompile(`^[0-9a-f]{40,64}-v([0-9]+)\.(gob|idx)$`)

// touch marks a cached index as used: pruning keeps the most recently used.
func touch(file string) {
	now := time.Now()
	_ = os.Chtimes(file, now, now)
}

// prune removes from cacheDir the indexes of other versions and all but
// the keepIndexes most recently used of this one. Only names Open writes
// are touched; a reader that opened a removed file still reads it whole.
func prune(cacheDir string) {
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		return
	}
	type cached struct {
		path string
		used time.Time
	}
	var current []cached
	for _, e := range entries {
		m := cacheName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(cacheDir, e.Name())
		if m[1] != strconv.Itoa(Version) || m[2] != "idx" {
			remove(path)
			continue
		}
		if info, err := e.Info(); err == nil {
			current = append(current, cached{path, info.ModTime()})
		}
	}
	slices.SortFunc(current, func(a, b cached) int { return b.used.Compare(a.used) })
	for _, c := range current[min(keepIndexes, len(current)):] {
		remove(c.path)
	}
}

func remove(path string) {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		slog.Warn("old index not removed", "path", path, "err", err)
	}
}
