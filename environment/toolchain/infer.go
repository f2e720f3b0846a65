// Package toolchain infers, from the files at a repository's root, the
// commands that install its dependencies and run its tests when
// `.github/warden.yml` names none: Go, Node, Python, Rust, Java, Ruby and a
// Makefile's test target. It reads files only; it runs nothing.
package toolchain

import (
	"io/fs"
)

// Inference is what a repository's files say about how to test it.
type Inference struct {
	Ecosystem string   // go, node, python, rust, java, ruby, make
	From      string   // the file the commands were inferred from, e.g. go.mod
	Setup     string   // fills the ecosystem's caches, with network; empty: nothing to fetch
	Test      string   // runs the tests offline
	Tools     []string // programs the commands need on the sandbox's PATH
}

// rule infers from one ecosystem's files, or reports false.
type rule func(fs.FS) (Inference, bool)

// rules are tried in order: a language's own manifest beats a Makefile,
// which often wraps the same command with extras (linters, coverage), and
// package.json comes after Python's and Java's files: beside them it is
// almost always the front end's or the docs' (Sphinx's search tests,
// Jenkins's web UI), not the repository's own test suite.
var rules = []rule{goRule, rustRule, pythonRule, javaRule, nodeRule, rubyRule, makeRule}

// Infer returns the first inference a rule makes for the repository root
// fsys, or false when nothing there says how to run the tests.
func Infer(fsys fs.FS) (Inference, bool) {
	for _, r := range rules {
		if inf, ok := r(fsys); ok {
			return inf, true
		}
	}
	return Inference{}, false
}

// Hint is what to tell a maintainer when nothing could be inferred.
const Hint = "set `test:` (and `setup:` for dependencies) in .github/warden.yml; Warden infers them only from go.mod, Cargo.toml, package.json with a test script, pyproject.toml/setup.cfg/tox.ini/pytest.ini, a Maven or Gradle wrapper, a Gemfile or a Makefile with a test target"

func exists(fsys fs.FS, name string) bool {
	_, err := fs.Stat(fsys, name)
	return err == nil
}

// read returns the file's content, capped: manifests are small, and an
// enormous one must not cost the worker its memory.
func read(fsys fs.FS, name string) string {
	f, err := fsys.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n, _ := readFull(f, buf)
	return string(buf[:n])
}

func readFull(f fs.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := f.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
