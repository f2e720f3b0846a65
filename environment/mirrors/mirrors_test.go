package mirrors

import (
	"slices"
	"testing"
)

func TestMirrorsGiveTheToolsVariablesAndHosts(t *testing.T) {
	m := Mirrors{PipIndex: "http://127.0.0.2:8081/simple/", NPMRegistry: "https://npm.internal/", GoProxy: "https://goproxy.internal,https://b.internal:8443|direct"}
	vars := m.Vars()
	for _, want := range []string{"PIP_INDEX_URL=http://127.0.0.2:8081/simple/", "UV_DEFAULT_INDEX=http://127.0.0.2:8081/simple/",
		"npm_config_registry=https://npm.internal/", "GOPROXY=https://goproxy.internal,https://b.internal:8443|direct"} {
		if !slices.Contains(vars, want) {
			t.Errorf("vars %q lack %q", vars, want)
		}
	}
	if got := m.Hosts(); !slices.Equal(got, []string{"127.0.0.2:8081", "npm.internal:443", "goproxy.internal:443", "b.internal:8443"}) {
		t.Errorf("hosts = %q", got)
	}
	if (Mirrors{}).Vars() != nil || (Mirrors{}).Hosts() != nil {
		t.Error("unset mirrors set something")
	}
}

func TestForNamesTheMirrorACommandUses(t *testing.T) {
	m := Mirrors{PipIndex: "http://pip.internal/simple/", NPMRegistry: "https://npm.internal/", GoProxy: "https://goproxy.internal"}
	for line, want := range map[string]string{
		`python3 -m venv --system-site-packages "$VIRTUAL_ENV" && { python3 -c 'import pytest' 2>/dev/null || python3 -m pip install pytest; }`: PipSetting,
		"uv sync --frozen --all-extras":    PipSetting,
		"npm ci --prefer-offline":          NPMSetting,
		"./node_modules/.bin/pnpm install": NPMSetting,
		"go mod download":                  GoSetting,
		"python3 -m pytest":                "",
		"cargo fetch":                      "",
	} {
		got := ""
		if f := m.For(line); len(f) > 0 {
			got = f[0].Setting
		}
		if got != want {
			t.Errorf("For(%q) = %q, want %q", line, got, want)
		}
	}
}
