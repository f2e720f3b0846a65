package toolchain

import "testing"

func TestResolveOrder(t *testing.T) {
	dc := files(".devcontainer/devcontainer.json", "{\n // a comment\n \"image\": \"mcr.microsoft.com/devcontainers/python:3.12\", /* x */\n \"features\": {},\n}\n", "pyproject.toml", "[tool.pytest.ini_options]\n")
	cases := []struct {
		name      string
		d         Declared
		fs        map[string]string
		image     string
		imageFrom string
	}{
		{"declared wins", Declared{Image: "ghcr.io/a/b:1", DefaultImage: "d:1"}, nil, "ghcr.io/a/b:1", ".github/warden.yml"},
		{"devcontainer next", Declared{DefaultImage: "d:1"}, nil, "mcr.microsoft.com/devcontainers/python:3.12", ".devcontainer/devcontainer.json"},
	}
	for _, c := range cases {
		p := Resolve(dc, c.d)
		if p.Image != c.image || p.ImageFrom != c.imageFrom {
			t.Errorf("%s: image %q from %q", c.name, p.Image, p.ImageFrom)
		}
	}
	p := Resolve(files("go.mod", ""), Declared{DefaultImage: "d:1"})
	if p.Image != "d:1" || p.ImageFrom != "WARDEN_DEFAULT_IMAGE" {
		t.Errorf("default: %+v", p)
	}
	if p := Resolve(files("go.mod", ""), Declared{}); p.Image != "" || p.ImageFrom != "" {
		t.Errorf("no image anywhere: %+v", p)
	}
}

func TestResolveDockerfileDevcontainerSaysSo(t *testing.T) {
	p := Resolve(files(".devcontainer/devcontainer.json", `{"build": {"dockerfile": "Dockerfile"}}`), Declared{DefaultImage: "d:1"})
	if p.Image != "d:1" || p.Note == "" {
		t.Fatalf("%+v", p)
	}
}

func TestResolveCommands(t *testing.T) {
	fs := files("package.json", `{"scripts":{"test":"jest"},"devDependencies":{"jest":"1"}}`, "package-lock.json", "{}")
	p := Resolve(fs, Declared{})
	if !p.Inferred || p.Test != "npm test" || p.TestFrom != "package.json + package-lock.json" || p.Setup != "npm ci --prefer-offline --no-audit --no-fund" || p.SetupFrom != p.TestFrom {
		t.Fatalf("inferred: %+v", p)
	}
	p = Resolve(fs, Declared{Setup: "make deps"})
	if p.Setup != "make deps" || p.SetupFrom != ConfigFile || p.Test != "npm test" {
		t.Fatalf("declared setup kept: %+v", p)
	}
	p = Resolve(fs, Declared{Test: "make check"})
	if p.Inferred || p.Test != "make check" || p.TestFrom != ConfigFile || p.Setup != "" {
		t.Fatalf("declared test: %+v", p)
	}
	if p := Resolve(files("README", ""), Declared{}); p.Test != "" || p.Inferred {
		t.Fatalf("nothing: %+v", p)
	}
}
