package toolchain

import (
	"strings"
	"testing"
)

// The inferred Python setup uses what the image or worker has: a venv that
// sees the system's packages, pytest installed only when it cannot be
// imported, and the project installed only when its tests need it.
func TestPythonSetupInstallsOnlyWhatIsMissing(t *testing.T) {
	const venv = `python3 -m venv --system-site-packages "$VIRTUAL_ENV"`
	const pytest = `{ python3 -c 'import pytest' 2>/dev/null || python3 -m pip install pytest; }`
	cases := []struct {
		name  string
		fs    map[string]string
		setup string
	}{
		{"pythonpath set, no dependencies: nothing but pytest, if missing",
			map[string]string{"pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n"},
			venv + " && " + pytest},
		{"flat layout, empty dependencies: python -m pytest imports from the tree",
			map[string]string{"pyproject.toml": "[project]\nname = \"calc\"\ndependencies = []\n[tool.pytest.ini_options]\n"},
			venv + " && " + pytest},
		{"declared dependencies are installed with the project",
			map[string]string{"pyproject.toml": "[project]\nname = \"calc\"\ndependencies = [\"attrs\"]\n[tool.pytest.ini_options]\n"},
			venv + " && python3 -m pip install -e '.' && " + pytest},
		{"src layout without pythonpath needs the project installed",
			map[string]string{"pyproject.toml": "[project]\nname = \"calc\"\n[tool.pytest.ini_options]\n", "src/calc/__init__.py": ""},
			venv + " && python3 -m pip install -e '.' && " + pytest},
		{"test extras are installed",
			map[string]string{"pyproject.toml": "[project]\nname='x'\n[project.optional-dependencies]\ntest = [\"pytest\"]\n"},
			venv + " && python3 -m pip install -e '.[test]' && " + pytest},
		{"setup.py is always installed",
			map[string]string{"setup.py": "from setuptools import setup\nsetup(tests_require=['pytest'])\n"},
			venv + " && python3 -m pip install -e '.' && " + pytest},
		{"requirements file",
			map[string]string{"tox.ini": "[testenv]\ncommands = pytest\n", "requirements-dev.txt": "pytest\n"},
			venv + " && python3 -m pip install -r requirements-dev.txt && " + pytest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var kv []string
			for k, v := range c.fs {
				kv = append(kv, k, v)
			}
			inf, ok := Infer(files(kv...))
			if !ok || inf.Test != "python3 -m pytest" {
				t.Fatalf("inferred %+v, %v", inf, ok)
			}
			if inf.Setup != c.setup {
				t.Errorf("setup\n got %s\nwant %s", inf.Setup, c.setup)
			}
		})
	}
}

// A unittest project with nothing to install has no setup at all.
func TestPythonUnittestNeedsNoSetup(t *testing.T) {
	inf, _ := Infer(files("pyproject.toml", "[tool.black]\n", "tests/test_a.py", ""))
	if inf.Setup != "" || !strings.HasPrefix(inf.Test, "python3 -m unittest") {
		t.Fatalf("got %+v", inf)
	}
}
