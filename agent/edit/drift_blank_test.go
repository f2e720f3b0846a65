package edit

import "testing"

// Blank-line drift of issue #30: SEARCH leaves out a blank line of the
// file that REPLACE, copied from the file, includes. REPLACE's blank line is
// the file's: it must be written once, where REPLACE puts it — never the
// file's and REPLACE's both, nor the file's on the other side of the new
// lines. Five shapes, in PHP, Java, Elixir and Go.
func TestBlankLineLeftOutOfSearchButInReplace(t *testing.T) {
	cases := []struct{ name, path, src, search, replace, want string }{
		{"php: changed line above the blank", "src/Cache.php",
			"<?php\nclass Cache {\n    public function get($key) {\n        $value = $this->store[$key];\n\n        return $value;\n    }\n}\n",
			"        $value = $this->store[$key];\n        return $value;\n",
			"        $value = $this->store[$key] ?? null;\n\n        return $value;\n",
			"<?php\nclass Cache {\n    public function get($key) {\n        $value = $this->store[$key] ?? null;\n\n        return $value;\n    }\n}\n"},
		{"java: new line after the changed one, blank below", "src/main/java/App.java",
			"public class App {\n    void run() {\n        int n = count();\n\n        log(n);\n    }\n}\n",
			"        int n = count();\n        log(n);\n",
			"        int n = count(true);\n        check(n);\n\n        log(n);\n",
			"public class App {\n    void run() {\n        int n = count(true);\n        check(n);\n\n        log(n);\n    }\n}\n"},
		{"java: changed line below the blank", "src/main/java/Svc.java",
			"class Svc {\n    int a() {\n        int x = 1;\n\n        return x;\n    }\n}\n",
			"        int x = 1;\n        return x;\n",
			"        int x = 1;\n\n        return x + 1;\n",
			"class Svc {\n    int a() {\n        int x = 1;\n\n        return x + 1;\n    }\n}\n"},
		{"elixir: new line before the blank", "lib/app.ex",
			"defmodule App do\n  def start do\n    config = load()\n\n    run(config)\n  end\nend\n",
			"    config = load()\n    run(config)\n",
			"    config = load()\n    validate!(config)\n\n    run(config)\n",
			"defmodule App do\n  def start do\n    config = load()\n    validate!(config)\n\n    run(config)\n  end\nend\n"},
		{"go: both neighbours changed", "p.go",
			"package p\n\nfunc f() {\n\ta := 1\n\n\tb := 2\n}\n",
			"\ta := 1\n\tb := 2\n",
			"\ta := 10\n\n\tb := 20\n",
			"package p\n\nfunc f() {\n\ta := 10\n\n\tb := 20\n}\n"},
	}
	for _, tc := range cases {
		files := memFS{tc.path: tc.src}
		_, err := apply(t, files, block(tc.path, tc.search, tc.replace))
		if err != nil || files[tc.path] != tc.want {
			t.Errorf("%s: err %v\n got %q\nwant %q", tc.name, err, files[tc.path], tc.want)
		}
	}
}

// A Python docstring's block dedented to column 0: its inner two-column
// step is the docstring's own, not a level of the file's four-space unit, so
// a new line at that step is two columns deeper in the file, not four.
func TestDocstringDedentedKeepsItsOwnStep(t *testing.T) {
	code := "class Loader:\n    def read(self, path):\n        if path:\n            return open(path)\n\n"
	src := code + "def load(path):\n    \"\"\"Load a file.\n\n    Options:\n      strict: fail on unknown keys\n      cache: keep the parsed result\n    \"\"\"\n    return read(path)\n"
	files := memFS{"cfg.py": src}
	search := "Options:\n  strict: fail on unknown keys\n  cache: keep the parsed result\n"
	replace := "Options:\n  strict: fail on unknown keys\n  cache: keep the parsed result\n    (default: on)\n"
	want := code + "def load(path):\n    \"\"\"Load a file.\n\n    Options:\n      strict: fail on unknown keys\n      cache: keep the parsed result\n        (default: on)\n    \"\"\"\n    return read(path)\n"
	if _, err := apply(t, files, block("cfg.py", search, replace)); err != nil || files["cfg.py"] != want {
		t.Fatalf("err %v\n got %q\nwant %q", err, files["cfg.py"], want)
	}
	// The step is read from the block: a new, deeper line under "Options:"
	// alone (no step shown) still takes one level of the file's unit.
	files = memFS{"cfg.py": src}
	if _, err := apply(t, files, block("cfg.py", "Options:\n", "Options:\n  verbose: say more\n")); err != nil {
		t.Fatal(err)
	}
}
