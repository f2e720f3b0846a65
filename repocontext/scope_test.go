package repocontext

import (
	"fmt"
	"strings"
	"testing"
)

func TestScopesOfTitle(t *testing.T) {
	for title, want := range map[string]string{
		"Indentation: false positives when switch expression is invocation target": "Indentation",
		"ignore: parallel walker occasionally hangs if visitor panics":             "ignore",
		"fix(har): off-by-one in WebSocket frame header size calculation":          "har",
		"Bug: [no-unused-vars] false positive if name is type/value merged":        "no-unused-vars",
		"[Bug]: codegen generates incorrect code":                                  "",
		"Bug: Incorrect encoding of complex64 numbers":                             "",
		"`meta: end_host` returns `rc=2` when run in a rescue block":               "",
		"Aliases with .htm extension are published to the wrong path":              "",
	} {
		if got := strings.Join(scopes(title), ","); got != want {
			t.Errorf("scopes(%q) = %q, want %q", title, got, want)
		}
	}
}

// A title naming its component ("Indentation: …") puts the component's
// files — the class named after it and the files of its package — above
// files elsewhere that share more of the title's other words.
func TestTitleScopeRanksTheComponent(t *testing.T) {
	const pkg = "src/main/java/org/lint/checks/"
	files := map[string]string{
		pkg + "indentation/IndentationCheck.java":  "package org.lint.checks.indentation;\n\npublic class IndentationCheck { void visit() {} }\n",
		pkg + "indentation/MethodCallHandler.java": "package org.lint.checks.indentation;\n\n/** Handles a method call's indentation. */\npublic class MethodCallHandler { int expectedIndent() { return 0; } }\n",
		pkg + "indentation/BlockHandler.java":      "package org.lint.checks.indentation;\n\npublic class BlockHandler { }\n",
	}
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf(pkg+"coding/Switch%dCheck.java", i)] = fmt.Sprintf("package org.lint.checks.coding;\n\n/** Indentation of a switch expression as target: false positives. */\npublic class Switch%dCheck { }\n", i)
	}
	_, x := repoFrom(t, files)
	q := NewQuery("Indentation: false positives when switch expression is invocation target", "The switch expression is the target of a method call.")
	if got := rankOf(x, q, pkg+"indentation/IndentationCheck.java"); got != 1 {
		t.Errorf("IndentationCheck.java at %d, want 1 (ranking %v)", got, paths(x, Rank(x, q)))
	}
	if got := rankOf(x, q, pkg+"indentation/MethodCallHandler.java"); got == 0 || got > 3 {
		t.Errorf("MethodCallHandler.java at %d, want 2 or 3 (ranking %v)", got, paths(x, Rank(x, q)))
	}
}

// A file name that many files end with ("module-info.java") points at
// none of them: a file the words and names point at ranks first.
func TestCommonFileNameSharesItsWeight(t *testing.T) {
	files := map[string]string{
		"src/main/java/org/lint/checks/InvalidJavadocPositionCheck.java": "package org.lint.checks;\n\n/** Checks the position of Javadoc comments. */\npublic class InvalidJavadocPositionCheck { void visitToken() {} }\n",
	}
	for i := 0; i < 6; i++ {
		files[fmt.Sprintf("src/main/resources/mod%d/module-info.java", i)] = fmt.Sprintf("module mod%d { requires java.base; }\n", i)
	}
	_, x := repoFrom(t, files)
	q := NewQuery("false positive on a module's Javadoc", "`InvalidJavadocPosition` flags the Javadoc of mod/module-info.java; the module-info.java Javadoc is in the right position.")
	if got := top(x, q); got != "src/main/java/org/lint/checks/InvalidJavadocPositionCheck.java" {
		t.Errorf("top = %s, want the check (ranking %v)", got, paths(x, Rank(x, q)))
	}
}
