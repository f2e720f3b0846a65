package repocontext

import (
	"path"
	"strings"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// testsToCode gives the code a test file tests part of the test's score:
// an issue often reads like a failing test, but the fix is in the code.
// Only a test beside its code counts: following tests kept in a tree of
// their own (Maven's src/test/java, pytest's tests/) to the code of the
// tested name was measured on the corpus (issue #30) and ranked the fixed
// file lower more often than higher — such trees hold many tests whose
// words match an issue, and their scores lifted the code they test over
// the file the fix changed.
func testsToCode(x *repoindex.Index, s []Scored) {
	add := make([]float64, len(s))
	for i, f := range x.Files {
		if f.Kind != repoindex.Test || s[i].Score <= 0 {
			continue
		}
		if j := x.Lookup(testedPath(f.Path)); j >= 0 && j != i {
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
