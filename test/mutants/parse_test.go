package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	text := "# a comment\n\n=== no-check: the check removed\nfile: a/b.go\ntest: ./a -run 'TestX|TestY'\n--- find\n\tif bad {\n\t\treturn err\n\t}\n--- replace\n\n# the next group\n=== two: x\nfile: c.go\ntest: ./c\n--- find\nA\n--- replace\nB\n\n# trailing\n"
	ms, err := parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("got %d mutants, want 2", len(ms))
	}
	m := ms[0]
	if m.Name != "no-check" || m.Why != "the check removed" || m.File != "a/b.go" || m.Test != "./a -run 'TestX|TestY'" {
		t.Errorf("header: %+v", m)
	}
	if m.Find != "\tif bad {\n\t\treturn err\n\t}\n" || m.Replace != "" {
		t.Errorf("find %q replace %q", m.Find, m.Replace)
	}
	if ms[1].Find != "A\n" || ms[1].Replace != "B\n" {
		t.Errorf("second: %+v", ms[1])
	}
}

func TestParseRefusesIncompleteEntries(t *testing.T) {
	for name, text := range map[string]string{
		"no file":  "=== a: x\ntest: ./a\n--- find\nA\n--- replace\nB\n",
		"no test":  "=== a: x\nfile: a.go\n--- find\nA\n--- replace\nB\n",
		"no find":  "=== a: x\nfile: a.go\ntest: ./a\n--- replace\nB\n",
		"same":     "=== a: x\nfile: a.go\ntest: ./a\n--- find\nA\n--- replace\nA\n",
		"outside":  "stray\n=== a: x\nfile: a.go\ntest: ./a\n--- find\nA\n--- replace\nB\n",
		"two word": "=== a b: x\nfile: a.go\ntest: ./a\n--- find\nA\n--- replace\nB\n",
		"empty":    "# nothing\n",
	} {
		if _, err := parse(text); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

func TestSplitWords(t *testing.T) {
	got, err := splitWords(`./a/... -run 'TestA|TestB' -args "x y"`)
	want := []string{"./a/...", "-run", "TestA|TestB", "-args", "x y"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	if _, err := splitWords("-run 'open"); err == nil || !strings.Contains(err.Error(), "unclosed") {
		t.Errorf("unclosed quote: %v", err)
	}
}

// A test line with an unclosed quote could not run any test, and its
// failure would read as a catch: the file is refused instead.
func TestUnclosedQuoteInTestLineIsRefused(t *testing.T) {
	_, err := parse("=== q: x\nfile: a.go\ntest: ./a -run 'TestX\n--- find\nA\n--- replace\nB\n")
	if err == nil || !strings.Contains(err.Error(), "unclosed") {
		t.Fatalf("parse = %v, want the unclosed quote named", err)
	}
}
