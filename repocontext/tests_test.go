package repocontext

import "testing"

func TestTestedPath(t *testing.T) {
	for test, want := range map[string]string{
		"a/b_test.go": "a/b.go", "pkg/test_util.py": "pkg/util.py", "src/x.spec.ts": "src/x.ts",
		"src/org/FooTest.java": "src/org/Foo.java", "src/org/FooTests.java": "src/org/Foo.java",
		"src/org/FooIT.java": "src/org/Foo.java", "src/org/Foo.java": "src/org/Foo.java",
	} {
		if got := testedPath(test); got != want {
			t.Errorf("testedPath(%s) = %s, want %s", test, got, want)
		}
	}
}
