package toolchain

import (
	"testing"
	"testing/fstest"
)

func files(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
	}
	return m
}

func TestInfer(t *testing.T) {
	cases := []struct {
		name             string
		fs               fstest.MapFS
		eco, from, setup string
		test             string
		tools0           string
	}{
		{"go without deps", files("go.mod", "module x\n"), "go", "go.mod", "", "go test ./...", "go"},
		{"go with deps", files("go.mod", "module x\n", "go.sum", ""), "go", "go.mod", "go mod download", "go test ./...", "go"},
		{"go with vendored modules downloads nothing", files("go.mod", "module x\n", "go.sum", "", "vendor/modules.txt", "# example.com/dep v1.0.0\n"), "go", "go.mod", "", "go test ./...", "go"},
		{"go beats makefile", files("go.mod", "module x", "Makefile", "test:\n\tgo test -race ./...\n"), "go", "go.mod", "", "go test ./...", "go"},
		{"rust", files("Cargo.toml", "[package]"), "rust", "Cargo.toml", "cargo fetch", "cargo test --workspace --offline", "cargo"},
		{"node npm lock", files("package.json", `{"scripts":{"test":"jest"},"devDependencies":{"jest":"1"}}`, "package-lock.json", "{}"), "node", "package.json + package-lock.json", "npm ci --prefer-offline --no-audit --no-fund", "npm test", "node"},
		{"node pnpm", files("package.json", `{"scripts":{"test":"vitest"},"devDependencies":{"vitest":"1"}}`, "pnpm-lock.yaml", ""), "node", "package.json + pnpm-lock.yaml", "pnpm install --frozen-lockfile --prefer-offline", "pnpm test", "node"},
		{"node yarn", files("package.json", `{"scripts":{"test":"ava"},"dependencies":{"a":"1"}}`, "yarn.lock", ""), "node", "package.json + yarn.lock", "yarn install --frozen-lockfile", "yarn test", "node"},
		{"node packageManager field", files("package.json", `{"packageManager":"pnpm@9.1.0","scripts":{"test":"vitest"},"dependencies":{"a":"1"}}`), "node", "package.json", "pnpm install --frozen-lockfile --prefer-offline", "pnpm test", "node"},
		{"node no deps", files("package.json", `{"scripts":{"test":"node --test"}}`), "node", "package.json", "", "npm test", "node"},
		{"node default test script is none", files("package.json", `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`), "", "", "", "", ""},
		{"python unittest, nothing to install", files("pyproject.toml", "[tool.black]\n", "tests/test_a.py", ""), "python", "pyproject.toml", "", "python3 -m unittest discover -s tests", "python3"},
		{"python pytest project", files("pyproject.toml", "[project]\nname='x'\n[project.optional-dependencies]\ntest = [\"pytest\"]\n"), "python", "pyproject.toml", `python3 -m venv --system-site-packages "$VIRTUAL_ENV" && python3 -m pip install -e '.[test]' && { python3 -c 'import pytest' 2>/dev/null || python3 -m pip install pytest; }`, "python3 -m pytest", "python3"},
		{"python tox + requirements", files("tox.ini", "[testenv]\ncommands = pytest\n", "requirements-dev.txt", "pytest\n"), "python", "tox.ini", `python3 -m venv --system-site-packages "$VIRTUAL_ENV" && python3 -m pip install -r requirements-dev.txt && { python3 -c 'import pytest' 2>/dev/null || python3 -m pip install pytest; }`, "python3 -m pytest", "python3"},
		{"python pytest.ini", files("pytest.ini", "[pytest]\n"), "python", "pytest.ini", `python3 -m venv --system-site-packages "$VIRTUAL_ENV" && { python3 -c 'import pytest' 2>/dev/null || python3 -m pip install pytest; }`, "python3 -m pytest", "python3"},
		{"python uv", files("pyproject.toml", "[project]\n", "uv.lock", ""), "python", "pyproject.toml + uv.lock", "uv sync --frozen --all-extras", "uv run --frozen --offline python -m pytest", "python3"},
		{"python beside a front end's package.json", files("pyproject.toml", "[project]\n", "uv.lock", "", "package.json", `{"scripts":{"test":"jasmine"},"devDependencies":{"jasmine":"1"}}`, "package-lock.json", "{}"), "python", "pyproject.toml + uv.lock", "uv sync --frozen --all-extras", "uv run --frozen --offline python -m pytest", "python3"},
		{"maven beside a web UI's package.json", files("pom.xml", "<project/>", "package.json", `{"scripts":{"test":"jest"},"devDependencies":{"jest":"1"}}`, "yarn.lock", ""), "java", "pom.xml", "mvn -B -q dependency:go-offline", "mvn -B -o test", "java"},
		{"maven wrapper", files("pom.xml", "<project/>", "mvnw", ""), "java", "mvnw", "sh ./mvnw -B -q dependency:go-offline", "sh ./mvnw -B -o test", "java"},
		{"gradle wrapper", files("build.gradle.kts", "", "gradlew", ""), "java", "gradlew", "sh ./gradlew --no-daemon -q testClasses", "sh ./gradlew --no-daemon --offline test", "java"},
		{"maven bare", files("pom.xml", "<project/>"), "java", "pom.xml", "mvn -B -q dependency:go-offline", "mvn -B -o test", "java"},
		{"ruby rspec", files("Gemfile", "", ".rspec", ""), "ruby", "Gemfile", "bundle install", "bundle exec rspec", "ruby"},
		{"ruby rake", files("Gemfile", ""), "ruby", "Gemfile", "bundle install", "bundle exec rake test", "ruby"},
		{"makefile test target", files("Makefile", "all:\n\tcc x.c\ntest: all\n\t./t\n"), "make", "Makefile", "", "make test", "make"},
		{"makefile variable named test is not a target", files("Makefile", "test := 1\n"), "", "", "", "", ""},
		{"nothing", files("README.md", "hi"), "", "", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inf, ok := Infer(c.fs)
			if ok != (c.eco != "") {
				t.Fatalf("inferred=%v %+v, want %v", ok, inf, c.eco != "")
			}
			if !ok {
				return
			}
			if inf.Ecosystem != c.eco || inf.From != c.from || inf.Setup != c.setup || inf.Test != c.test || inf.Tools[0] != c.tools0 {
				t.Errorf("got %+v\nwant eco=%s from=%s setup=%q test=%q tool=%s", inf, c.eco, c.from, c.setup, c.test, c.tools0)
			}
		})
	}
}

func TestUnittestPackageUsesTopLevel(t *testing.T) {
	inf, _ := Infer(files("setup.cfg", "[flake8]\n", "tests/__init__.py", ""))
	if inf.Test != "python3 -m unittest discover -s tests -t ." {
		t.Fatalf("test = %q", inf.Test)
	}
}
