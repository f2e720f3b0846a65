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
// the worktree's .git link there, as a crashed git or a full disk might.
func chaos(stage, dir string) {
	for _, f := range strings.Split(os.Getenv("WARDEN_CHAOS"), ",") {
		switch f {
		case "panic:" + stage:
			panic("chaos: injected panic in " + stage)
		case "corrupt:" + stage:
			_ = os.Remove(filepath.Join(dir, ".git"))
		}
	}
}
