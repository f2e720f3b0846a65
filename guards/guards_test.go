package guards

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckPath(t *testing.T) {
	ok := map[string]string{"a/b.go": "a/b.go", "./x.go": "x.go", "a//b/../c.go": "a/c.go", "docs/v1.2/readme.md": "docs/v1.2/readme.md", ".github/x": ".github/x"}
	for in, want := range ok {
		if got, err := CheckPath(in); err != nil || got != want {
			t.Errorf("CheckPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{"", "/etc/passwd", "a/../../etc/passwd", "..", "../x", "./.git/config", ".git", "x/.git/hooks/pre-commit", ".GIT/config", ".git./config",
		`C:\x`, "C:/x", `\\server\share`, `a\..\b`, "a\x00b", "a\nb", "dir/file. ", "dir./x", "trailing ", "a\u2024\u2024/b", "\uFF0E\uFF0E/etc", "a\u2215b", "a\u202Eb", "\u200Bx"}
	for _, in := range bad {
		if _, err := CheckPath(in); err == nil {
			t.Errorf("CheckPath(%q) accepted", in)
		} else if v := AsViolations(err); len(v) != 1 || v[0].Rule != "unsafe_path" {
			t.Errorf("CheckPath(%q): %v is not an unsafe_path violation", in, err)
		}
	}
}

// fakeFS is a Linker over a map: path → symlink target ("" for a plain file).
type fakeFS map[string]string

type fi struct {
	name string
	link bool
}

func (f fi) Name() string { return f.name }
func (f fi) Size() int64  { return 0 }
func (f fi) Mode() fs.FileMode {
	if f.link {
		return fs.ModeSymlink
	}
	return 0
}
func (f fi) ModTime() time.Time { return time.Time{} }
func (f fi) IsDir() bool        { return false }
func (f fi) Sys() any           { return nil }

func (f fakeFS) Lstat(name string) (fs.FileInfo, error) {
	t, ok := f[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return fi{filepath.Base(name), t != ""}, nil
}
func (f fakeFS) Readlink(name string) (string, error) { return f[name], nil }

func TestResolveInside(t *testing.T) {
	fsys := fakeFS{"/w/root": "/", "/w/up": "../..", "/w/in": "sub", "/w/sub": "", "/w/abs-in": "/w/sub", "/w/loop": "loop"}
	for p, wantOK := range map[string]bool{"root/etc/passwd": false, "up/x": false, "in/file.go": true, "abs-in/x": true, "new/file.go": true, "loop/x": false} {
		got, err := ResolveInside("/w", p, fsys)
		if (err == nil) != wantOK {
			t.Errorf("ResolveInside(%q) = %q, %v; want ok=%v", p, got, err, wantOK)
		}
		if err == nil && !strings.HasPrefix(got, "/w/") {
			t.Errorf("ResolveInside(%q) = %q outside root", p, got)
		}
	}
}

// A symlink to / in a real directory is refused.
func TestResolveInsideRealSymlink(t *testing.T) {
	root := t.TempDir()
	if err := os.Symlink("/", filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveInside(root, "escape/etc/passwd", OSLinker{}); err == nil {
		t.Fatal("symlink to / accepted")
	}
}

// FuzzCheckPath: nothing CheckPath and ResolveInside accept lies outside root.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "a/../../b", ".git/x", "x/./y", "..\u2024", "a//b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		clean, err := CheckPath(p)
		if err != nil {
			return
		}
		abs, err := ResolveInside("/root/w", clean, fakeFS{})
		if err != nil {
			return
		}
		if rel, err := filepath.Rel("/root/w", abs); err != nil || strings.HasPrefix(rel, "..") || strings.Contains("/"+rel+"/", "/.git/") {
			t.Fatalf("%q resolved to %q outside the worktree", p, abs)
		}
	})
}

func TestCheckDiff(t *testing.T) {
	lim := Limits{MaxFiles: 2, MaxLines: 150, Protected: []string{".github/workflows/**", "**/*_test.go", "testdata/**"}}
	cases := []struct {
		name    string
		changes []Change
		rule    string
	}{
		{"fine", []Change{{Path: "a.go", Status: Modified, Added: 3, Deleted: 1, OldLines: 50, NewLines: 52}}, ""},
		{"test file", []Change{{Path: "calc/calc_test.go", Status: Modified, Added: 1}}, "protected_path"},
		{"workflow", []Change{{Path: ".github/workflows/ci.yml", Status: Added, Added: 1}}, "protected_path"},
		{"rename into protection", []Change{{Path: "x.go", OldPath: "testdata/x.go", Status: Renamed}}, "protected_path"},
		{"too many files", []Change{{Path: "a"}, {Path: "b"}, {Path: "c"}}, "blast_radius_files"},
		{"too many lines", []Change{{Path: "a", Added: 100, Deleted: 51}}, "blast_radius_lines"},
		{"truncation", []Change{{Path: "big.go", Status: Modified, OldLines: 40, NewLines: 19, Deleted: 21}}, "truncation"},
		{"deleting a big file", []Change{{Path: "big.go", Status: Deleted, OldLines: 100, Deleted: 100}}, "truncation"},
		{"small file may shrink", []Change{{Path: "s.go", Status: Modified, OldLines: 39, NewLines: 1, Deleted: 38}}, ""},
		{"binary", []Change{{Path: "x.png", Status: Added, Binary: true}}, "binary"},
		{"huge", []Change{{Path: "x.txt", Status: Added, Size: 2 << 20}}, "huge_file"},
		{"symlink", []Change{{Path: "l", Status: Added, Symlink: true}}, "symlink"},
		{"secret", []Change{{Path: "c.go", Status: Modified, AddedText: []string{`const tok = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"`}}}, "secret"},
		{"unsafe", []Change{{Path: "../x", Status: Added}}, "unsafe_path"},
	}
	for _, tc := range cases {
		err := CheckDiff(tc.changes, lim)
		vs := AsViolations(err)
		if tc.rule == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.name, err)
			}
			continue
		}
		found := false
		for _, v := range vs {
			found = found || v.Rule == tc.rule
			if v.ForModel() == "" || v.ForMaintainer() == "" {
				t.Errorf("%s: empty wording", tc.name)
			}
		}
		if !found {
			t.Errorf("%s: got %v, want a %s violation", tc.name, err, tc.rule)
		}
	}
}

func TestCheckPlan(t *testing.T) {
	lim := Limits{MaxFiles: 2, Protected: []string{"**/*_test.go"}}
	if err := CheckPlan([]string{"a.go", "b.go"}, lim); err != nil {
		t.Fatal(err)
	}
	if vs := AsViolations(CheckPlan([]string{"a.go", "b.go", "c.go", "d.go"}, lim)); len(vs) != 1 || vs[0].Rule != "blast_radius_files" {
		t.Fatalf("4-file plan: %v", vs)
	}
	if vs := AsViolations(CheckPlan([]string{"a_test.go"}, lim)); len(vs) != 1 || vs[0].Rule != "protected_path" {
		t.Fatalf("test in plan: %v", vs)
	}
}

func TestSlugAndBranch(t *testing.T) {
	cases := map[string]string{
		"Add returns the difference!": "add-returns-the-difference",
		"  --Weird__Title--  ":        "weird-title",
		"日本語":                         "issue",
		"a very long title that keeps going and going and going": "a-very-long-title-that-keeps-going-and-g",
		"$(rm -rf /); `x`": "rm-rf-x",
	}
	for in, want := range cases {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
		// git itself judges the name: every title makes a branch it accepts.
		if b := BranchName("warden", 12, in); exec.Command("git", "check-ref-format", "--branch", b).Run() != nil || len(Slug(in)) > 40 {
			t.Errorf("branch %q invalid", b)
		}
	}
}

func TestScanSecrets(t *testing.T) {
	lines := []string{"ok", "key := \"sk-proj-abcdefghijklmnopqrstuvwxyz123456\"", "AKIAABCDEFGHIJKLMNOP", "-----BEGIN RSA PRIVATE KEY-----", "just text"}
	got := ScanSecrets(lines)
	if len(got) != 3 || got[0].Line != 2 || got[1].Line != 3 || got[2].Line != 4 {
		t.Fatalf("got %+v", got)
	}
}
