package toolchain

import (
	"io/fs"
	"strings"
)

// pythonFiles are the files that make a repository a Python one, in the
// order their name is reported.
var pythonFiles = []string{"pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "setup.py"}

// requirementFiles hold test dependencies; the first found is installed.
var requirementFiles = []string{"requirements-dev.txt", "requirements-test.txt", "requirements_dev.txt", "requirements_test.txt", "dev-requirements.txt", "test-requirements.txt", "requirements/test.txt", "requirements/dev.txt", "requirements/tests.txt", "requirements.txt"}

// pythonRule runs pytest when anything mentions it, else unittest (which
// needs nothing installed). Setup builds a virtual environment in the
// repository's cache ($VIRTUAL_ENV, on PATH for every later command) and
// installs into it only what the image or worker lacks (pythonSetup).
func pythonRule(fsys fs.FS) (Inference, bool) {
	from := ""
	for _, f := range pythonFiles {
		if exists(fsys, f) {
			from = f
			break
		}
	}
	if from == "" {
		return Inference{}, false
	}
	inf := Inference{Ecosystem: "python", From: from, Tools: []string{"python3"}}
	pyproject := read(fsys, "pyproject.toml")
	switch {
	case exists(fsys, "uv.lock"):
		inf.From, inf.Tools = "pyproject.toml + uv.lock", []string{"python3", "uv"}
		inf.Setup, inf.Test = "uv sync --frozen --all-extras", "uv run --frozen --offline python -m pytest"
		return inf, true
	case exists(fsys, "poetry.lock"):
		inf.From, inf.Tools = "pyproject.toml + poetry.lock", []string{"python3", "poetry"}
		inf.Setup, inf.Test = "poetry install --all-extras", "poetry run python -m pytest"
		return inf, true
	}
	pytest := usesPytest(fsys, pyproject)
	inf.Test = unittestCommand(fsys)
	if pytest {
		inf.Test = "python3 -m pytest"
	}
	inf.Setup = pythonSetup(fsys, pyproject, pytest)
	return inf, true
}

func usesPytest(fsys fs.FS, pyproject string) bool {
	if exists(fsys, "pytest.ini") || exists(fsys, "conftest.py") || exists(fsys, "tests/conftest.py") {
		return true
	}
	for _, s := range []string{pyproject, read(fsys, "setup.cfg"), read(fsys, "tox.ini"), read(fsys, "setup.py")} {
		if strings.Contains(s, "pytest") {
			return true
		}
	}
	for _, r := range requirementFiles {
		if strings.Contains(read(fsys, r), "pytest") {
			return true
		}
	}
	return false
}

// unittestCommand discovers tests where they usually are.
func unittestCommand(fsys fs.FS) string {
	for _, d := range []string{"tests", "test"} {
		if fi, err := fs.Stat(fsys, d); err == nil && fi.IsDir() {
			if exists(fsys, d+"/__init__.py") {
				return "python3 -m unittest discover -s " + d + " -t ."
			}
			return "python3 -m unittest discover -s " + d
		}
	}
	return "python3 -m unittest discover"
}

// extras names the optional-dependency group holding test tools, if any.
func extras(manifest string) string {
	for _, e := range []string{"test", "tests", "testing", "dev"} {
		for _, form := range []string{"\n" + e + " = [", "\n" + e + "=[", "\n" + e + " =", "\n" + `"` + e + `" = [`} {
			if strings.Contains(manifest, form) {
				return "[" + e + "]"
			}
		}
	}
	return ""
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
