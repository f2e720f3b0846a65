package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// cacheVars are the environment variables naming caches a command may read.
var cacheVars = map[string]bool{"GOCACHE": true, "GOMODCACHE": true, "npm_config_cache": true}

// cacheSubdirs are the caches kept per repository, by variable.
var cacheSubdirs = [][2]string{{"GOMODCACHE", "gomod"}, {"GOCACHE", "gobuild"}, {"npm_config_cache", "npm"}}

// CacheDir is repo's dependency cache, apart from every other repository's
// so that one tenant's setup can never plant what another's build trusts.
func (m *Manager) CacheDir(repo string) string {
	return filepath.Join(m.dir, "caches", safe(repo))
}

// cacheEnv points Go and npm at the repository's cache. The setup command
// downloads; every other command is offline and must find everything there.
func cacheEnv(dir string, setup bool) []string {
	if dir == "" {
		return nil
	}
	var env []string
	for _, c := range cacheSubdirs {
		env = append(env, c[0]+"="+filepath.Join(dir, c[1]))
	}
	if setup {
		// Module directories stay deletable, so the cache can be dropped.
		return append(env, "GOFLAGS=-modcacherw")
	}
	return append(env, "GOPROXY=off", "GOTOOLCHAIN=local", "npm_config_offline=true")
}

func makeCache(dir string) error {
	if dir == "" {
		return fmt.Errorf("setup command without a cache directory")
	}
	for _, c := range cacheSubdirs {
		if err := os.MkdirAll(filepath.Join(dir, c[1]), 0o700); err != nil {
			return fmt.Errorf("create cache: %w", err)
		}
	}
	return nil
}

// settleGoCache keeps GOCACHE only when it names a build cache Go has
// initialized: mounted read-only, an empty one makes every go command fail.
// Otherwise the command gets a private, writable one in its HOME, thrown
// away after: slower, never shared.
func settleGoCache(env []string, home string) []string {
	for i := len(env) - 1; i >= 0; i-- {
		v, ok := strings.CutPrefix(env[i], "GOCACHE=")
		if !ok {
			continue
		}
		if fi, err := os.Stat(filepath.Join(v, "00")); err == nil && fi.IsDir() {
			return env
		}
		env[i] = "GOCACHE=" + filepath.Join(home, ".cache", "go-build")
		return env
	}
	return env
}
