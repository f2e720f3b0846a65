// Package gitfixture makes real git repositories for tests: bare repos served
// as file:// clone URLs, with helpers to read what Warden pushed.
package gitfixture

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=Fixture", "GIT_AUTHOR_EMAIL=fixture@example.com", "GIT_COMMITTER_NAME=Fixture", "GIT_COMMITTER_EMAIL=fixture@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// NewRepo makes a bare repository whose main branch holds files, and returns
// its directory and file:// clone URL.
func NewRepo(t testing.TB, files map[string]string) (bare, cloneURL string) {
	t.Helper()
	root := t.TempDir()
	bare = filepath.Join(root, "remote.git")
	git(t, root, "init", "--bare", "--quiet", "--initial-branch=main", bare)
	Commit(t, bare, "main", files)
	return bare, "file://" + bare
}

// Commit adds a commit with files to branch of a bare repository.
func Commit(t testing.TB, bare, branch string, files map[string]string) {
	t.Helper()
	work := t.TempDir()
	git(t, work, "init", "--quiet", "--initial-branch="+branch)
	if strings.TrimSpace(git(t, bare, "branch", "--list", branch)) != "" {
		git(t, work, "fetch", "--quiet", bare, branch)
		git(t, work, "reset", "--quiet", "--hard", "FETCH_HEAD")
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(work, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, work, "add", "-A")
	git(t, work, "commit", "--quiet", "-m", "fixture commit")
	git(t, work, "push", "--quiet", bare, "HEAD:refs/heads/"+branch)
}

// ReadFile reads path at ref of a bare repository.
func ReadFile(t testing.TB, bare, ref, path string) string {
	t.Helper()
	return git(t, bare, "show", ref+":"+path)
}

// Branches lists a bare repository's branches.
func Branches(t testing.TB, bare string) []string {
	t.Helper()
	return strings.Fields(git(t, bare, "for-each-ref", "--format=%(refname:short)", "refs/heads/"))
}

// GoModuleWithBug is a tiny Go module whose Add subtracts; its test catches it.
func GoModuleWithBug() map[string]string {
	return map[string]string{
		"go.mod":             "module example.com/calc\n\ngo 1.22\n",
		"calc/calc.go":       "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"calc/calc_test.go":  "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
		".github/warden.yml": "test: go test ./...\nmax_fix_attempts: 2\n",
		"README.md":          "# calc\n",
	}
}
