package repocontext

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// repoFrom commits files to a new repository and indexes it.
func repoFrom(t *testing.T, files map[string]string) (string, *repoindex.Index) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	x, err := repoindex.Open(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	return dir, x
}

// rankOf is a file's 1-based place in the ranking, 0 when left out.
func rankOf(x *repoindex.Index, q Query, p string) int {
	for i, s := range Rank(x, q) {
		if x.Files[s.File].Path == p {
			return i + 1
		}
	}
	return 0
}

// A long issue quoting code repeats the code's words, and its lexical
// scores grow with it; the file holding the message the issue quotes must
// not sink below every file sharing those words.
func TestLongIssueKeepsQuotedMessageInView(t *testing.T) {
	files := map[string]string{
		"lint/lookup.go": "package lint\n\nfunc check() string { return \"unnecessary lookup of dictionary value by key\" }\n",
		"glob/glob.go":   "package glob\n\n// glob priorities: match a glob against the globs.\nfunc matchGlob(glob string, globs []string, priority float64) bool { return false }\n",
	}
	for i := 0; i < 8; i++ {
		files[fmt.Sprintf("glob/g%d.go", i)] = fmt.Sprintf("package glob\n\n// a glob with its priority\nfunc G%d() {}\n", i)
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("misc/m%02d.go", i)] = fmt.Sprintf("package misc\n\nfunc M%02d() {}\n", i)
	}
	_, x := repoFrom(t, files)
	code := strings.Repeat("for glob, priority in globs_priorities:\n    if fnmatch.fnmatch(glob, res_glob): break\n", 12)
	q := NewQuery("false positive", "Example:\n```python\n"+code+"```\noutputs: Unnecessary lookup of dictionary value by key")
	if got := rankOf(x, q, "lint/lookup.go"); got == 0 || got > 2 {
		t.Errorf("lint/lookup.go at %d, want 1 or 2 (ranking %v)", got, paths(x, Rank(x, q)))
	}
}

// The file defining what the best file uses is ranked near it, above
// files that merely share a word of the issue.
func TestDefinerOfWhatTheBestFileUsesRanksNear(t *testing.T) {
	files := map[string]string{
		"ops/clean.go":  "package ops\n\n// Clean removes the build output of the requested packages.\nfunc Clean(target string) { k := kind.FromRequestedTargets(target); _ = k }\n",
		"kind/kind.go":  "package kind\n\ntype CompileKind int\n\nfunc FromRequestedTargets(s string) CompileKind { return 0 }\n",
		"other/pkg.go":  "package other\n\n// packages are listed here.\nfunc List() {}\n",
		"other/out.go":  "package other\n\n// output of a build.\nfunc Out() {}\n",
		"other/conf.go": "package other\n\n// config values.\nfunc Conf() {}\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("misc/m%02d.go", i)] = fmt.Sprintf("package misc\n\n// packages build output config\nfunc M%02d() {}\n", i)
	}
	_, x := repoFrom(t, files)
	q := NewQuery("clean ignores the configured target", "clean -p removes nothing when the target comes from config")
	clean, kind := rankOf(x, q, "ops/clean.go"), rankOf(x, q, "kind/kind.go")
	if clean != 1 {
		t.Fatalf("ops/clean.go at %d, want 1 (ranking %v)", clean, paths(x, Rank(x, q)))
	}
	if kind == 0 || kind > 3 {
		t.Errorf("kind/kind.go at %d, want 2 or 3 (ranking %v)", kind, paths(x, Rank(x, q)))
	}
}

// A path's extension ends at a word boundary: "ansible.cfg" in a version
// dump is no path "ansible.c", while a trace's "main.c:12" is one.
func TestQueryPathEndsWithItsExtension(t *testing.T) {
	q := NewQuery("crash", "config file = /etc/ansible/ansible.cfg\nat src/main.c:12 and lib/x.json")
	var got []string
	for _, p := range q.Paths {
		got = append(got, fmt.Sprintf("%s:%d", p.Path, p.Line))
	}
	if want := "src/main.c:12 lib/x.json:0"; strings.Join(got, " ") != want {
		t.Errorf("paths = %v, want %s", got, want)
	}
}
