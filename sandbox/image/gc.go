package image

import (
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func (s *Store) acquire(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inUse == nil {
		s.inUse = map[string]int{}
	}
	s.inUse[dir]++
}

// Release says a command using root ended; its image may be collected.
func (s *Store) Release(root Root) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dir := filepath.Dir(root.Dir)
	if s.inUse[dir] > 0 {
		s.inUse[dir]--
	}
	// Collect now and then, in the background, never two at once.
	if time.Since(s.lastGC) > gcEvery && !s.collecting {
		s.lastGC, s.collecting = time.Now(), true
		go func() {
			if n, err := s.GC(); err != nil || n > 0 {
				s.logger().Info("image cache collected", "removed", n, "err", err)
			}
			s.mu.Lock()
			s.collecting = false
			s.mu.Unlock()
		}()
	}
}

// gcEvery is the least time between two background collections.
const gcEvery = 10 * time.Minute

func (s *Store) logger() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// GC removes unpacked images, least recently used first, until the cache is
// under its cap, never one in use; and leftovers of interrupted unpacks.
// It returns how many images it removed.
func (s *Store) GC() (int, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil
		}
		return 0, err
	}
	type cached struct {
		dir  string
		used time.Time
		size int64
	}
	var all []cached
	var total int64
	for _, e := range entries {
		dir := filepath.Join(s.Dir, e.Name())
		if strings.HasPrefix(e.Name(), ".unpack-") && !s.busy() {
			_ = os.RemoveAll(dir)
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, "used"))
		if err != nil {
			continue
		}
		c := cached{dir: dir, used: fi.ModTime(), size: du(dir)}
		all = append(all, c)
		total += c.size
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used.Before(all[j].used) })
	_, _, limit := s.limits()
	removed := 0
	for _, c := range all {
		if total <= limit {
			break
		}
		if s.used(c.dir) {
			continue
		}
		if err := os.RemoveAll(c.dir); err != nil {
			return removed, err
		}
		total -= c.size
		removed++
	}
	return removed, nil
}

func (s *Store) used(dir string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inUse[dir] > 0
}

// busy reports whether any unpack may be under way (a lock is held).
func (s *Store) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.locks {
		if !l.TryLock() {
			return true
		}
		l.Unlock()
	}
	return false
}

func du(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
