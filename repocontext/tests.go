package repocontext

import (
	"path"
	"strings"

	"github.com/warden-bot/warden/repoindex"
)

// testsToCode gives the code a test file tests part of the test's score:
// an issue often reads like a failing test, but the fix is in the code.
func testsToCode(x *repoindex.Index, s []Scored) {
	add := make([]float64, len(s))
	var byBase map[string][]int
	for i, f := range x.Files {
		if f.Kind != repoindex.Test || s[i].Score <= 0 {
			continue
		}
		tested := testedPath(f.Path)
		j := x.Lookup(tested)
		if j < 0 && tested != f.Path && repoindex.IsTest(path.Dir(f.Path)+"/x") {
			if byBase == nil {
				byBase = sourcesByBase(x)
			}
			j = testedElsewhere(x, f.Path, byBase)
		}
		if j >= 0 && j != i {
			add[j] += wTestToCode * s[i].Score / kindFactor[repoindex.Test]
		}
	}
	for i := range s {
		s[i].Score += add[i] * kindFactor[x.Files[i].Kind]
	}
}

// testedPath names the file a test file tests, by convention.
func testedPath(p string) string {
	dir, base := path.Split(p)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return dir + strings.TrimSuffix(base, "_test.go") + ".go"
	case strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"):
		return dir + strings.TrimPrefix(base, "test_")
	case strings.HasSuffix(base, "_test.py"):
		return dir + strings.TrimSuffix(base, "_test.py") + ".py"
	case strings.Contains(base, ".test."):
		return dir + strings.Replace(base, ".test.", ".", 1)
	case strings.Contains(base, ".spec."):
		return dir + strings.Replace(base, ".spec.", ".", 1)
	case strings.HasSuffix(base, "Tests.java"):
		return dir + strings.TrimSuffix(base, "Tests.java") + ".java"
	case strings.HasSuffix(base, "Test.java"):
		return dir + strings.TrimSuffix(base, "Test.java") + ".java"
	case strings.HasSuffix(base, "IT.java"):
		return dir + strings.TrimSuffix(base, "IT.java") + ".java"
	}
	return p
}

// Tests often live in a tree of their own that mirrors the code's:
// Maven's src/test/java/com/x/FooTest.java tests src/main/java/com/x/Foo.java,
// pytest's tests/cli/test_main.py tests pkg/cli/main.py. testedElsewhere
// finds the source file of the tested name whose directories end like the
// test's, the test tree's own names left out; -1 when none or several do
// equally. Only a file named as a test is followed there: a fixture named
// like a source file ("[slug].astro", "index.ts") tests nothing of that
// name, and hundreds of them summed up lifted one example to the top.
func testedElsewhere(x *repoindex.Index, test string, byBase map[string][]int) int {
	want := path.Base(testedPath(test))
	var dirs []string
	for _, d := range strings.Split(path.Dir(test), "/") {
		if !testTreeNames[d] {
			dirs = append(dirs, d)
		}
	}
	best, bestN, tie := -1, -1, false
	for _, j := range byBase[want] {
		n := commonTail(dirs, strings.Split(path.Dir(x.Files[j].Path), "/"))
		switch {
		case n > bestN:
			best, bestN, tie = j, n, false
		case n == bestN:
			tie = true
		}
	}
	if tie {
		return -1
	}
	return best
}

// testTreeNames are the directories that make a test tree.
var testTreeNames = map[string]bool{"test": true, "tests": true, "__tests__": true, "spec": true, "it": true, "testing": true}

// commonTail counts the directory names two paths end with alike.
func commonTail(a, b []string) int {
	n := 0
	for i, j := len(a)-1, len(b)-1; i >= 0 && j >= 0 && a[i] == b[j]; i, j = i-1, j-1 {
		n++
	}
	return n
}

// sourcesByBase maps a file name to the source files of that name.
func sourcesByBase(x *repoindex.Index) map[string][]int {
	m := map[string][]int{}
	for i, f := range x.Files {
		if f.Kind == repoindex.Source {
			b := path.Base(f.Path)
			m[b] = append(m[b], i)
		}
	}
	return m
}
