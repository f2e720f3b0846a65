package toolchain

import (
	"io/fs"
	"regexp"
	"strings"
)

// pythonVenv sees the system's site packages: a pytest the image or the
// worker already has (Debian's python3-pytest) is used, not downloaded,
// so a project that needs nothing else sets up without a package index.
const pythonVenv = `python3 -m venv --system-site-packages "$VIRTUAL_ENV"`

// pytestIfMissing installs pytest only when it cannot be imported.
const pytestIfMissing = `{ python3 -c 'import pytest' 2>/dev/null || python3 -m pip install pytest; }`

// pythonSetup is the inferred setup: the venv, the project and its test
// requirements where its tests need them installed, then pytest if
// missing. Empty when there is nothing to install.
func pythonSetup(fsys fs.FS, pyproject string, pytest bool) string {
	var installs []string
	if needsProjectInstall(fsys, pyproject) {
		installs = append(installs, "-e "+shellQuote("."+extras(pyproject+read(fsys, "setup.cfg"))))
	}
	for _, r := range requirementFiles {
		if exists(fsys, r) {
			installs = append(installs, "-r "+r)
			break
		}
	}
	if len(installs) == 0 && !pytest {
		return ""
	}
	steps := []string{pythonVenv}
	if len(installs) > 0 {
		steps = append(steps, "python3 -m pip install "+strings.Join(installs, " "))
	}
	if pytest {
		steps = append(steps, pytestIfMissing)
	}
	return strings.Join(steps, " && ")
}

var (
	emptyDeps    = regexp.MustCompile(`(?m)^\s*dependencies\s*=\s*\[\s*\]`)
	declaredDeps = regexp.MustCompile(`(?m)^\s*dependencies\s*=`)
	dynamicDeps  = regexp.MustCompile(`(?m)^\s*dynamic\s*=.*"dependencies"`)
)

// needsProjectInstall reports whether the tests need the project installed:
// it declares dependencies or test extras, builds through setup.py or
// setup.cfg (which may declare anything), or keeps its code under src/
// where `python3 -m pytest`, which imports from the working directory,
// does not look unless pytest's `pythonpath` says so.
func needsProjectInstall(fsys fs.FS, pyproject string) bool {
	project := strings.Contains(pyproject, "[project]") || strings.Contains(pyproject, "[build-system]")
	switch {
	case exists(fsys, "setup.py") || strings.Contains(read(fsys, "setup.cfg"), "[metadata]"):
		return true
	case !project:
		return false
	case declaredDeps.MatchString(pyproject) && !emptyDeps.MatchString(pyproject), dynamicDeps.MatchString(pyproject):
		return true
	case extras(pyproject) != "":
		return true
	}
	if strings.Contains(pyproject, "pythonpath") {
		return false
	}
	fi, err := fs.Stat(fsys, "src")
	return err == nil && fi.IsDir()
}
