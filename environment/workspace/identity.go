package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// claimIdentity ties repo's name to GitHub's id for the repository. GitHub
// reuses names after renames and deletions; a mirror, parked worktrees and
// dependency caches kept under a name that now belongs to another
// repository would hand the old one's objects and files to the new one's
// tasks (fetch --prune never drops objects). So when the id recorded for
// the name differs, everything kept under the name is removed first. An id
// of 0 (a payload without one) leaves the record as it is. The caller holds
// the mirror's lock.
func (m *Manager) claimIdentity(repo string, id int64) error {
	if id == 0 {
		return nil
	}
	rec := filepath.Join(m.dir, "identity", safe(repo))
	if b, err := os.ReadFile(rec); err == nil && strings.TrimSpace(string(b)) == strconv.FormatInt(id, 10) {
		return nil
	} else if err == nil || !os.IsNotExist(err) || m.keeps(repo) {
		m.opts.Logger.Warn("repository name now has another id: its mirror, parked trees and caches are removed",
			"repo", repo, "repo_id", id, "audit", true)
		for _, d := range []string{m.mirrorDir(repo), m.parkedDir(repo), m.CacheDir(repo)} {
			if err := os.RemoveAll(d); err != nil {
				return fmt.Errorf("remove %s of the previous %s: %w", d, repo, err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(rec), 0o700); err != nil {
		return fmt.Errorf("record identity of %s: %w", repo, err)
	}
	return os.WriteFile(rec, []byte(strconv.FormatInt(id, 10)+"\n"), 0o600)
}

// keeps reports whether anything is kept under repo's name: data from
// before ids were recorded is of unknown identity and is not trusted.
func (m *Manager) keeps(repo string) bool {
	for _, d := range []string{m.mirrorDir(repo), m.parkedDir(repo), m.CacheDir(repo)} {
		if _, err := os.Stat(d); err == nil {
			return true
		}
	}
	return false
}
