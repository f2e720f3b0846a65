//go:build chaos

package pipeline

import (
	"os"
	"path/filepath"
	"strings"
)

// chaos injects faults for the end-to-end tests; it exists only in
// binaries built with -tags chaos. WARDEN_CHAOS is a comma-separated list:
// panic:<Stage> panics at the start of the stage; corrupt:<Stage> removes
// the worktree's git directory's HEAD and .git link there, as a crashed git
// or a full disk might.
func chaos(stage, dir string) {
	for _, f := range strings.Split(os.Getenv("WARDEN_CHAOS"), ",") {
		switch f {
		case "panic:" + stage:
			panic("chaos: injected panic in " + stage)
		case "corrupt:" + stage:
			// Warden's git names the git directory itself, so the damage
			// is done there (its HEAD), not only to the .git link.
			link := filepath.Join(dir, ".git")
			if b, err := os.ReadFile(link); err == nil {
				if admin, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
					_ = os.Remove(filepath.Join(admin, "HEAD"))
				}
			}
			_ = os.Remove(link)
		}
	}
}
