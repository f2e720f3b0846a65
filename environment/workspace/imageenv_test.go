package workspace

import (
	"slices"
	"strings"
	"testing"
)

// In an image, a command gets the image's environment, never the worker's
// PATH or Go settings, and the repository's virtual environment first on PATH.
func TestImageEnv(t *testing.T) {
	t.Setenv("GOROOT", "/usr/local/go")
	env := withVenv(append(imageEnv("/h", []string{"PATH=/opt/py/bin:/usr/bin", "HOME=/root", "WARDEN_X=1", "LANG=C.UTF-8"}, nil), "VIRTUAL_ENV=/c/venv"))
	if !slices.Contains(env, "PATH=/c/venv/bin:/opt/py/bin:/usr/bin") || !slices.Contains(env, "HOME=/h") || !slices.Contains(env, "LANG=C.UTF-8") {
		t.Fatalf("env %q", env)
	}
	for _, e := range env {
		if strings.HasPrefix(e, "GOROOT=") || strings.HasPrefix(e, "WARDEN_") || e == "HOME=/root" {
			t.Fatalf("leaked %q in %q", e, env)
		}
	}
	if env := imageEnv("/h", nil, nil); !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "PATH=/usr/local/sbin") }) {
		t.Fatalf("no default PATH: %q", env)
	}
}

// Offline commands are told so by every toolchain's own variable.
func TestCacheEnvOffline(t *testing.T) {
	env := cacheEnv("/c", false)
	for _, want := range []string{"PIP_NO_INDEX=1", "CARGO_NET_OFFLINE=true", "npm_config_offline=true", "GOPROXY=off", "VIRTUAL_ENV=/c/venv", "CARGO_HOME=/c/cargo"} {
		if !slices.Contains(env, want) {
			t.Errorf("missing %s in %q", want, env)
		}
	}
	if slices.Contains(cacheEnv("/c", true), "PIP_NO_INDEX=1") {
		t.Error("setup told to stay offline")
	}
}
