package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// cacheVars are the environment variables naming caches a command may read.
var cacheVars = map[string]bool{"GOCACHE": true, "GOMODCACHE": true, "npm_config_cache": true,
	"npm_config_store_dir": true, "YARN_CACHE_FOLDER": true, "VIRTUAL_ENV": true, "PIP_CACHE_DIR": true, "UV_CACHE_DIR": true,
	"CARGO_HOME": true, "GRADLE_USER_HOME": true, "MAVEN_USER_HOME": true, "BUNDLE_PATH": true}

// cacheSubdirs are the caches kept per repository, by variable: one per
// ecosystem toolchain.Infer knows, so its setup command fills them.
var cacheSubdirs = [][2]string{{"GOMODCACHE", "gomod"}, {"GOCACHE", "gobuild"}, {"npm_config_cache", "npm"},
	{"npm_config_store_dir", "pnpm"}, {"YARN_CACHE_FOLDER", "yarn"}, {"VIRTUAL_ENV", "venv"}, {"PIP_CACHE_DIR", "pip"},
	{"UV_CACHE_DIR", "uv"}, {"CARGO_HOME", "cargo"}, {"GRADLE_USER_HOME", "gradle"}, {"MAVEN_USER_HOME", "maven"}, {"BUNDLE_PATH", "bundle"}}

// offlineEnv tells each toolchain that the network is gone: read the cache,
// never try to download (a download attempt would only hang or fail late).
var offlineEnv = []string{"GOPROXY=off", "GOTOOLCHAIN=local", "npm_config_offline=true", "PIP_NO_INDEX=1",
	"UV_OFFLINE=1", "CARGO_NET_OFFLINE=true", "YARN_ENABLE_OFFLINE_MODE=1"}

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
		if c[0] == "GOCACHE" && !setup && !initialized(filepath.Join(dir, c[1])) {
			continue // the host's build cache, read-only, beats a cold one
		}
		env = append(env, c[0]+"="+filepath.Join(dir, c[1]))
	}
	if setup {
		// Module directories stay deletable, so the cache can be dropped.
		return append(env, "GOFLAGS=-modcacherw")
	}
	return append(env, offlineEnv...)
}

// withVenv puts the repository's virtual environment first on PATH, so the
// python3 and tools its setup installed are the ones found.
func withVenv(env []string) []string {
	venv := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "VIRTUAL_ENV="); ok {
			venv = v
		}
	}
	if venv == "" {
		return env
	}
	for i, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			env[i] = "PATH=" + filepath.Join(venv, "bin") + string(filepath.ListSeparator) + v
			return env
		}
	}
	return append(env, "PATH="+filepath.Join(venv, "bin")+":/usr/local/bin:/usr/bin:/bin")
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

// GoCacheProg is the path of the bot binary, which serves `gocacheprog`;
// empty (tests of this package) means no shared build cache.
var GoCacheProg string

// settleGoCache gives a command its own, writable GOCACHE in its HOME. Where
// GOCACHE named an initialized shared cache, the go command reads it through
// GoCacheProg (go 1.24+), which serves hits from it and keeps new results
// private: Go cannot run on a read-only GOCACHE, and a writable shared one
// would let a command plant build results that later commands trust. It
// returns the env and the paths to mount read-only.
func settleGoCache(env []string, home string) ([]string, []string) {
	private := filepath.Join(home, ".cache", "go-build")
	for i := len(env) - 1; i >= 0; i-- {
		shared, ok := strings.CutPrefix(env[i], "GOCACHE=")
		if !ok {
			continue
		}
		env[i] = "GOCACHE=" + private
		if GoCacheProg == "" || strings.ContainsAny(GoCacheProg+shared+home, " '\"") || !initialized(shared) {
			return env, nil
		}
		prog := GoCacheProg + " gocacheprog " + shared + " " + filepath.Join(home, ".cache", "go-prog")
		return append(env, "GOCACHEPROG="+prog), []string{shared, GoCacheProg}
	}
	return append(env, "GOCACHE="+private), nil
}

// initialized reports whether dir is a Go build cache Go has set up.
func initialized(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "00"))
	return err == nil && fi.IsDir()
}
