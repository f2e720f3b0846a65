package repoindex

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"
)

// sampleIndex is a cold build of a checkout holding every kind of entry:
// definitions with parents, literals, a binary file, a file in a
// subdirectory.
func sampleIndex(t testing.TB) *Index {
	dir := gitRepo(t, map[string]string{
		"calc/calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\nvar msg = \"cannot divide by zero here\"\n",
		"lib/walk.py":  "class Walker:\n    def walk(self):\n        raise ValueError('the walker fell over badly')\n",
		"src/lex.rs":   "pub struct Lexer;\nimpl Lexer { fn next(&self) {} }\n",
		"logo.png":     "\x89PNG\x00\x00",
		"README.md":    "# Calc — adds numbers, naïvely\n",
	})
	x, err := Build(context.Background(), dir, "0123abcd")
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// An index read back from its file is the index that was written.
func TestFormatRoundTrip(t *testing.T) {
	x := sampleIndex(t)
	path := t.TempDir() + "/x.idx"
	if err := x.Save(path); err != nil {
		t.Fatal(err)
	}
	y, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := *x
	want.termIDs, want.byPath = nil, nil
	if !reflect.DeepEqual(*y, want) {
		t.Fatalf("read back\n%+v\nwritten\n%+v", *y, want)
	}
	if y.Lookup("src/lex.rs") < 0 || len(y.TermFiles("walker")) != 1 {
		t.Fatal("read-back index does not answer lookups")
	}
}

// A truncated or altered file is refused, never half-read and never a
// panic; an altered posting that names a file the index has not is caught
// by the consistency check.
func TestFormatRefusesCorruptFiles(t *testing.T) {
	data := encoded(sampleIndex(t))
	for n := 0; n < len(data); n++ {
		if _, err := unmarshal(data[:n]); !errors.Is(err, errCorrupt) {
			t.Fatalf("truncated to %d of %d bytes: err = %v", n, len(data), err)
		}
	}
	x := sampleIndex(t)
	x.Post[0] = uint32(len(x.Files)) << 8
	if _, err := unmarshal(encoded(x)); !errors.Is(err, errCorrupt) {
		t.Fatalf("posting naming file %d of %d: err = %v", len(x.Files), len(x.Files), err)
	}
	for i := range data {
		flipped := append([]byte{}, data...)
		flipped[i] ^= 0xff
		unmarshal(flipped) // must not panic
	}
}

func FuzzUnmarshal(f *testing.F) {
	f.Add(encoded(sampleIndex(f)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if x, err := unmarshal(data); err == nil {
			for i := range x.Terms {
				x.TermFiles(x.Terms[i])
			}
			for i := range x.Literals {
				x.LiteralFiles(i)
			}
		}
	})
}

// encoded is the index's file as bytes.
func encoded(x *Index) []byte {
	parts := x.marshal()
	return bytes.Join(parts[:], nil)
}
