package toolchain

import (
	"encoding/json"
	"io/fs"
	"regexp"
	"strings"
)

func goRule(fsys fs.FS) (Inference, bool) {
	if !exists(fsys, "go.mod") {
		return Inference{}, false
	}
	inf := Inference{Ecosystem: "go", From: "go.mod", Test: "go test ./...", Tools: []string{"go"}}
	// No go.sum, no module to download; a vendor directory holds them all
	// already, and go test reads it without the network (-mod=vendor is
	// the default beside vendor/modules.txt).
	if exists(fsys, "go.sum") && !exists(fsys, "vendor/modules.txt") {
		inf.Setup = "go mod download"
	}
	return inf, true
}

func rustRule(fsys fs.FS) (Inference, bool) {
	if !exists(fsys, "Cargo.toml") {
		return Inference{}, false
	}
	// cargo fetch fills CARGO_HOME; the test run is told it is offline.
	// --workspace: in a workspace whose root is also a package (ripgrep),
	// plain cargo test would test the root package only.
	return Inference{Ecosystem: "rust", From: "Cargo.toml", Setup: "cargo fetch", Test: "cargo test --workspace --offline", Tools: []string{"cargo"}}, true
}

// npmDefaultTest is the test script `npm init` writes: not a test suite.
const npmDefaultTest = `echo "Error: no test specified" && exit 1`

func nodeRule(fsys fs.FS) (Inference, bool) {
	var pkg struct {
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]any    `json:"dependencies"`
		DevDependencies map[string]any    `json:"devDependencies"`
		PackageManager  string            `json:"packageManager"`
	}
	if json.Unmarshal([]byte(read(fsys, "package.json")), &pkg) != nil {
		return Inference{}, false
	}
	if t := strings.TrimSpace(pkg.Scripts["test"]); t == "" || t == npmDefaultTest {
		return Inference{}, false
	}
	pm, lock := packageManager(fsys, pkg.PackageManager)
	inf := Inference{Ecosystem: "node", From: "package.json", Tools: []string{"node", pm}}
	if lock != "" {
		inf.From += " + " + lock
	}
	switch pm {
	case "npm":
		// --prefer-offline: what the cache holds is not fetched again;
		// no audit or fund calls, which a mirror may not answer.
		inf.Test, inf.Setup = "npm test", "npm install --prefer-offline --no-audit --no-fund"
		if lock != "" {
			inf.Setup = "npm ci --prefer-offline --no-audit --no-fund"
		}
	case "pnpm":
		inf.Test, inf.Setup = "pnpm test", "pnpm install --frozen-lockfile --prefer-offline"
	case "bun":
		inf.Test, inf.Setup = "bun run test", "bun install --frozen-lockfile"
	default: // yarn: 1 and 2+ take different offline flags
		inf.Test, inf.Setup = pm+" test", pm+" install --frozen-lockfile"
	}
	if len(pkg.Dependencies)+len(pkg.DevDependencies) == 0 {
		inf.Setup = "" // nothing to install
	}
	return inf, true
}

// packageManager is the one package.json's packageManager field names, else
// the one whose lockfile is there, else npm; and the lockfile seen.
func packageManager(fsys fs.FS, field string) (string, string) {
	locks := [][2]string{{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lock", "bun"}, {"bun.lockb", "bun"}, {"package-lock.json", "npm"}, {"npm-shrinkwrap.json", "npm"}}
	named, _, _ := strings.Cut(field, "@")
	for _, l := range locks {
		if exists(fsys, l[0]) && (named == "" || named == l[1]) {
			return l[1], l[0]
		}
	}
	if named == "pnpm" || named == "yarn" || named == "bun" || named == "npm" {
		return named, ""
	}
	return "npm", ""
}

func rubyRule(fsys fs.FS) (Inference, bool) {
	if !exists(fsys, "Gemfile") {
		return Inference{}, false
	}
	inf := Inference{Ecosystem: "ruby", From: "Gemfile", Setup: "bundle install", Tools: []string{"ruby", "bundle"}}
	switch {
	case exists(fsys, ".rspec") || exists(fsys, "spec"):
		inf.Test = "bundle exec rspec"
	default:
		inf.Test = "bundle exec rake test"
	}
	return inf, true
}

var makeTestTarget = regexp.MustCompile(`(?m)^test\s*:([^=]|$)`)

func makeRule(fsys fs.FS) (Inference, bool) {
	for _, name := range []string{"GNUmakefile", "Makefile", "makefile"} {
		if makeTestTarget.MatchString(read(fsys, name)) {
			return Inference{Ecosystem: "make", From: name, Test: "make test", Tools: []string{"make"}}, true
		}
	}
	return Inference{}, false
}
