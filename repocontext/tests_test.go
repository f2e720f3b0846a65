package repocontext

import (
	"fmt"
	"testing"
)

// A test in a tree of its own — Maven's src/test/java, pytest's tests/ —
// passes its score to the code it tests, found by name where the
// directories end alike.
func TestTestTreeMapsToTheCode(t *testing.T) {
	files := map[string]string{
		"src/main/java/org/app/cache/Evictor.java":     "package org.app.cache;\n\npublic class Evictor { void evict() {} }\n",
		"src/main/java/org/app/legacy/Evictor.java":    "package org.app.legacy;\n\npublic class Evictor { }\n",
		"src/test/java/org/app/cache/EvictorTest.java": "package org.app.cache;\n\n/** stale entries survive a full sweep when the clock is frozen */\npublic class EvictorTest { void staleEntriesSurviveSweep() {} }\n",
		"app/cli/main.py":        "def run():\n    pass\n",
		"app/web/main.py":        "def serve():\n    pass\n",
		"tests/cli/test_main.py": "def test_exit_code_on_missing_profile():\n    '''exit code is zero on a missing profile'''\n",
	}
	for i := 0; i < 10; i++ {
		files[fmt.Sprintf("src/main/java/org/app/misc/M%d.java", i)] = fmt.Sprintf("package org.app.misc;\n\n/** entries and a sweep */\npublic class M%d { }\n", i)
	}
	_, x := repoFrom(t, files)
	for _, c := range []struct{ title, want, not string }{
		{"stale entries survive a sweep when the clock is frozen", "src/main/java/org/app/cache/Evictor.java", "src/main/java/org/app/legacy/Evictor.java"},
		{"exit code on a missing profile", "app/cli/main.py", "app/web/main.py"},
	} {
		q := NewQuery(c.title, "")
		got, other := rankOf(x, q, c.want), rankOf(x, q, c.not)
		if got == 0 || got > 2 || other != 0 && other < got {
			t.Errorf("%q: %s at %d (%s at %d), want it first among sources (ranking %v)", c.title, c.want, got, c.not, other, paths(x, Rank(x, q)))
		}
	}
}

func TestTestedElsewhereNeedsOneBestMatch(t *testing.T) {
	files := map[string]string{
		"a/util.py":             "def f():\n    pass\n",
		"b/util.py":             "def g():\n    pass\n",
		"tests/test_util.py":    "def test_f():\n    pass\n",
		"src/app/Foo.java":      "package app;\nclass Foo {}\n",
		"src/it/app/FooIT.java": "package app;\nclass FooIT {}\n",
	}
	_, x := repoFrom(t, files)
	by := sourcesByBase(x)
	for test, want := range map[string]string{"tests/test_util.py": "", "src/it/app/FooIT.java": "src/app/Foo.java"} {
		got := ""
		if j := testedElsewhere(x, test, by); j >= 0 {
			got = x.Files[j].Path
		}
		if got != want {
			t.Errorf("testedElsewhere(%s) = %q, want %q", test, got, want)
		}
	}
}
