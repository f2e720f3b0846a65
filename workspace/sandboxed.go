package workspace

import (
	"log/slog"

	"github.com/warden-bot/warden/sandbox"
	"os"
	"path/filepath"
	"strings"
)

// readOnlyFor lists what a command in dir sees read-only besides the system:
// the worktree's .git file and git directories (so git works but nothing a
// command runs can change the mirror's objects, config, hooks or
// info/exclude, or point the worktree at another git directory), and the Go
// caches named in env.
func readOnlyFor(dir string, env []string, caches bool) []string {
	var out []string
	dotgit := filepath.Join(dir, ".git")
	if b, err := os.ReadFile(dotgit); err == nil {
		out = append(out, dotgit)
		if admin, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok && filepath.IsAbs(admin) {
			out = appendDir(out, commonDir(admin))
		}
	}
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		if caches && cacheVars[k] && filepath.IsAbs(v) {
			out = appendDir(out, v)
		}
	}
	return out
}

// commonDir is the repository a worktree's administrative directory belongs
// to (its "commondir" file), or the administrative directory itself.
func commonDir(admin string) string {
	b, err := os.ReadFile(filepath.Join(admin, "commondir"))
	if err != nil {
		return admin
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(admin, c)
	}
	return filepath.Clean(c)
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

// GitReadOnly lists what a sandboxed command in the worktree dir needs
// read-only for git to work there: the .git file and this repository's git
// directory, never another repository's mirror.
func GitReadOnly(dir string) []string { return readOnlyFor(dir, nil, false) }
