package workspace

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/warden-bot/warden/sandbox"
)

// cachesIn lists the Go and npm caches named in env, which a command sees
// read-only. The worktree's git directory is not among them: the sandbox
// binds it from the tree Warden recorded (sandbox.Tree), never from what a
// file in the worktree says.
func cachesIn(env []string) []string {
	var out []string
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		if cacheVars[k] && filepath.IsAbs(v) {
			out = appendDir(out, v)
		}
	}
	return out
}

func appendDir(out []string, d string) []string {
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return append(out, d)
	}
	return out
}

// WarnIsolation logs, at every start, when repository commands will run
// without isolation (the operator's opt-out) or not at all.
func WarnIsolation(log *slog.Logger) {
	if err := sandbox.Available(); err != nil {
		log.Warn("repository commands are not isolated", "isolation", sandbox.Describe(), "unsafe_opt_out", sandbox.Unsafe())
	}
}
