package e2e

import (
	"archive/tar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakemodel"

	it "github.com/warden-bot/warden/sandbox/image/imagetest"
)

// langScript plans a one-file fix of file, replacing from with to, and
// approves it.
func langScript(file, from, to string) func(fakemodel.Request) fakemodel.Reply {
	return func(req fakemodel.Request) fakemodel.Reply {
		switch req.Stage {
		case "plan":
			return text("```json\n" + `{"decision":"implement","summary":"Make add return the sum.","approach":"Replace the subtraction.","files":["` + file + `"],"discoveries":[],"recommendation":""}` + "\n```\n")
		case "implement", "fix":
			return text(file + "\n<<<<<<< SEARCH\n" + from + "\n=======\n" + to + "\n>>>>>>> REPLACE\n")
		}
		return text(achieved)
	}
}

// langMarker is a file only the test image has: a test reading it proves
// it ran in the image, not on the worker.
const langMarker = "/etc/warden-e2e-image"

// langImageEnv makes ref the default image, its loopback registry named
// (WARDEN_IMAGE_REGISTRIES: the only way to a registry that is not public).
func langImageEnv(env map[string]string, ref string) {
	env["WARDEN_DEFAULT_IMAGE"], env["WARDEN_IMAGE_REGISTRIES"] = ref, strings.SplitN(ref, "/", 2)[0]
}

// langPythonImage is a Python image assembled from this machine's own
// python3 and standard library (no registry is reachable here), pushed to a
// loopback registry; it returns the reference.
func langPythonImage(t *testing.T) string {
	py, err := filepath.EvalSymlinks("/usr/bin/python3")
	if err != nil {
		t.Fatalf("the Python e2e test assembles its image from /usr/bin/python3 (scripts/test-deps.sh installs it): %v", err)
	}
	stdlib := "/usr/lib/" + filepath.Base(py)
	skip := []string{"__pycache__", "/test/", "config-3", "idlelib", "tkinter", "lib2to3", "ensurepip", "pydoc_data", "site-packages", "dist-packages", "/distutils"}
	base := it.HostLayer(t, []string{"/usr/bin/python3", "sh"}, []string{stdlib}, skip)
	marker := it.Layer(t, it.Entry{Header: tar.Header{Name: strings.TrimPrefix(langMarker, "/")}, Body: "python image\n"})
	img := it.Image(t, []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}, base, marker)
	return it.Push(t, it.Registry(t)+"/toolchains/python:3", img)
}

// A Python repository with no .github/warden.yml: Warden infers unittest
// from pyproject.toml, runs it in WARDEN_DEFAULT_IMAGE, the model fixes the
// failing test, and the PR opens; the record keeps the image's digest.
func TestPythonRepoInImage(t *testing.T) {
	ref := langPythonImage(t)
	files := map[string]string{
		"pyproject.toml":     "[tool.ruff]\nline-length = 100\n",
		"calc.py":            "def add(a, b):\n    return a - b\n",
		"tests/test_calc.py": "import unittest\n\nfrom calc import add\n\n\nclass TestAdd(unittest.TestCase):\n    def test_add(self):\n        with open(\"" + langMarker + "\") as f:\n            self.assertEqual(f.read(), \"python image\\n\")\n        self.assertEqual(add(2, 3), 5)\n",
		"README.md":          "calc\n",
	}
	w := newWorld(t, files, func(env map[string]string) { langImageEnv(env, ref) })
	w.Model.Script(langScript("calc.py", "    return a - b", "    return a + b"))
	w.Label(30, "add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(30, 180*time.Second)
	if rec.Outcome != "completed" || rec.PR == 0 {
		t.Fatalf("record = %+v\n%s\n%s", rec, w.CommentWith(30, "<!-- warden:outcome"), tail(w.Bot.Logs(), 4000))
	}
	if !strings.Contains(rec.Image, "/toolchains/python@sha256:") {
		t.Errorf("the record does not keep the image digest: %q", rec.Image)
	}
	status := w.CommentWith(30, "<!-- warden:status -->")
	if !strings.Contains(status, "python3 -m unittest discover -s tests` (inferred from `pyproject.toml`)") || !strings.Contains(status, "(from `WARDEN_DEFAULT_IMAGE`)") {
		t.Errorf("the status comment does not say what was inferred:\n%s", status)
	}
}

// A Node repository with no .github/warden.yml and no image: `npm test`
// (node's test runner) inferred from package.json runs with the worker's
// own node; the model fixes the failing test and the PR opens.
func TestNodeRepoInferred(t *testing.T) {
	for _, p := range []string{"/usr/bin/node", "/usr/bin/npm"} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("this test needs %s (scripts/test-deps.sh installs nodejs and npm): %v", p, err)
		}
	}
	files := map[string]string{
		"package.json":      `{"name":"calc","version":"1.0.0","scripts":{"test":"node --test"}}` + "\n",
		"calc.js":           "exports.add = (a, b) => {\n  return a - b;\n};\n",
		"test/calc.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc.js');\n\ntest('add', () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n",
	}
	w := newWorld(t, files)
	w.Model.Script(langScript("calc.js", "  return a - b;", "  return a + b;"))
	w.Label(31, "add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(31, 180*time.Second)
	if rec.Outcome != "completed" || rec.PR == 0 {
		t.Fatalf("record = %+v\n%s\n%s", rec, w.CommentWith(31, "<!-- warden:outcome"), tail(w.Bot.Logs(), 4000))
	}
	if status := w.CommentWith(31, "<!-- warden:status -->"); !strings.Contains(status, "test `npm test` (inferred from `package.json`)") {
		t.Errorf("the status comment does not say what was inferred:\n%s", status)
	}
}

// A Ruby repository run in an image without Ruby: the attempt ends blocked,
// and the comment says which tool is missing and what to set; the model is
// never asked to fix it.
func TestMissingToolchainBlocked(t *testing.T) {
	ref := langPythonImage(t)
	w := newWorld(t, map[string]string{"Gemfile": "source 'https://rubygems.org'\n", "lib/calc.rb": "def add(a, b) = a - b\n"},
		func(env map[string]string) { langImageEnv(env, ref) })
	w.Model.Script(langScript("lib/calc.rb", "a - b", "a + b"))
	w.Label(32, "add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(32, 120*time.Second)
	comment := w.CommentWith(32, "<!-- warden:outcome")
	if rec.Outcome != "blocked" || !strings.Contains(comment, "`bundle`") || !strings.Contains(comment, "image:") {
		t.Fatalf("record = %+v\n%s", rec, comment)
	}
	if n := len(w.Model.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
}

// langGoImage is a Go image assembled from this machine's Go tree, trimmed
// to what `go test` of a module needs (no cmd sources, tests or testdata).
func langGoImage(t *testing.T) string {
	goroot := "/usr/local/go"
	if _, err := os.Stat(filepath.Join(goroot, "bin", "go")); err != nil {
		t.Fatalf("the Go e2e test assembles its image from %s: %v", goroot, err)
	}
	tool := filepath.Join(goroot, "pkg", "tool", "linux_amd64")
	skip := []string{"testdata", "_test.go", goroot + "/src/cmd/", goroot + "/bin/gofmt"}
	for _, name := range []string{"cgo", "cover", "fix", "preprofile"} {
		skip = append(skip, filepath.Join(tool, name))
	}
	trees := []string{filepath.Join(goroot, "bin"), filepath.Join(goroot, "src"), tool, filepath.Join(goroot, "pkg", "include"), filepath.Join(goroot, "go.env"), filepath.Join(goroot, "VERSION")}
	base := it.HostLayer(t, []string{"sh"}, trees, skip)
	marker := it.Layer(t, it.Entry{Header: tar.Header{Name: strings.TrimPrefix(langMarker, "/")}, Body: "go image\n"})
	img := it.Image(t, []string{"PATH=/usr/local/go/bin:/usr/bin:/bin", "CGO_ENABLED=0", "GOTOOLCHAIN=local"}, base, marker)
	return it.Push(t, it.Registry(t)+"/toolchains/go:1", img)
}

// A Go repository whose go exists only in the image its devcontainer.json
// names (the sandbox shows none of the worker's /usr): go test runs there,
// the model fixes the failing test, and the PR opens.
func TestGoRepoOnlyInImage(t *testing.T) {
	ref := langGoImage(t)
	files := calcRepo()
	files["calc/image_test.go"] = "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestInImage(t *testing.T) {\n\tb, err := os.ReadFile(\"" + langMarker + "\")\n\tif err != nil || string(b) != \"go image\\n\" {\n\t\tt.Fatalf(\"not in the image: %q %v\", b, err)\n\t}\n}\n"
	files[".devcontainer/devcontainer.json"] = "{\n  // the toolchain image\n  \"image\": \"" + ref + "\",\n}\n"
	// Its loopback registry is named (WARDEN_IMAGE_REGISTRIES); the image
	// itself comes from the repository's devcontainer.json, not a default.
	w := newWorld(t, files, func(env map[string]string) { env["WARDEN_IMAGE_REGISTRIES"] = strings.SplitN(ref, "/", 2)[0] })
	w.Model.Script(happyScript)
	w.Label(33, "Add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(33, 300*time.Second)
	if rec.Outcome != "completed" || rec.PR == 0 || !strings.Contains(rec.Image, "/toolchains/go@sha256:") {
		t.Fatalf("record = %+v\n%s\n%s", rec, w.CommentWith(33, "<!-- warden:outcome"), tail(w.Bot.Logs(), 4000))
	}
	if status := w.CommentWith(33, "<!-- warden:status -->"); !strings.Contains(status, "(from `.devcontainer/devcontainer.json`)") {
		t.Errorf("the status comment does not name the image's source:\n%s", status)
	}
}
