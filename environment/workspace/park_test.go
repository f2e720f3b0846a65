package workspace

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/gitfixture"
)

func parkingManager(t *testing.T) (*Manager, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	m, err := New(t.TempDir(), Options{GitTimeout: time.Minute, Park: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return m, &logs
}

var parkFiles = map[string]string{
	"keep.txt": "never changes\n", "a.txt": "one\n", "dir/b.txt": "bee\n",
	".gitignore": "build/\n*.log\n",
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// vandalize does, in a task's worktree, everything the reuse rule names.
func vandalize(t *testing.T, w *Worktree) {
	t.Helper()
	write := func(p, s string) {
		full := filepath.Join(w.Dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "changed\n")                       // modified
	os.Remove(filepath.Join(w.Dir, "dir", "b.txt"))   // deleted
	write("new.txt", "created\n")                     // created
	write("build/out/bin.o", "ignored\n")             // ignored directory
	write("debug.log", "ignored\n")                   // ignored file
	os.Chmod(filepath.Join(w.Dir, "a.txt"), 0o755)    // mode change of a tracked file
	os.Chmod(filepath.Join(w.Dir, "keep.txt"), 0o000) // unreadable tracked file
	write("nested/inner.txt", "inner\n")              // a nested repository
	run(t, filepath.Join(w.Dir, "nested"), "git", "init", "-q")
	run(t, filepath.Join(w.Dir, "nested"), "git", "add", "-A")
	run(t, filepath.Join(w.Dir, "nested"), "git", "commit", "-qm", "inner")
	write("sealed/inside.txt", "x\n") // directories a clean cannot enter or empty
	write("dark/inside.txt", "x\n")
	os.Chmod(filepath.Join(w.Dir, "sealed"), 0o500)
	os.Chmod(filepath.Join(w.Dir, "dark"), 0o000)
	if _, err := w.Commit(context.Background(), "task commit", "t", "t@x"); err != nil { // the task's own commit
		t.Fatal(err)
	}
	write("after-commit.txt", "x\n")
	// .git/info/exclude as git resolves it (the mirror's, which every
	// worktree reads) and in the worktree's own administrative directory.
	shared := strings.TrimSpace(run(t, w.Dir, "git", "rev-parse", "--git-path", "info/exclude"))
	if !filepath.IsAbs(shared) {
		shared = filepath.Join(w.Dir, shared)
	}
	os.MkdirAll(filepath.Dir(shared), 0o755)
	os.WriteFile(shared, []byte("*.hidden\n"), 0o644)
	admin := w.gitDir
	os.MkdirAll(filepath.Join(admin, "info"), 0o755)
	os.WriteFile(filepath.Join(admin, "info", "exclude"), []byte("*.hidden\n"), 0o644)
	os.WriteFile(filepath.Join(admin, "locked"), []byte("a task locked me\n"), 0o644) // `git worktree lock`
	os.WriteFile(filepath.Join(admin, "index.lock"), nil, 0o644)                      // a killed git's lock
	// Killed mid-command: a command writing files dies by SIGKILL.
	cmd := exec.Command("sh", "-c", "mkdir -p half && echo partial > half/written && exec sleep 60")
	cmd.Dir = w.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(w.Dir, "half", "written")); err == nil {
			break
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
}

// assertPristine: the tree is byte for byte the base commit.
func assertPristine(t *testing.T, w *Worktree) {
	t.Helper()
	if out := run(t, w.Dir, "git", "status", "--porcelain", "--ignored", "--untracked-files=all"); out != "" {
		t.Fatalf("git status --porcelain --ignored is not empty:\n%s", out)
	}
	idx := filepath.Join(t.TempDir(), "index")
	cmd := exec.Command("sh", "-c", "git add -A && git write-tree")
	cmd.Dir, cmd.Env = w.Dir, append(os.Environ(), "GIT_INDEX_FILE="+idx)
	tree, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := run(t, w.Dir, "git", "rev-parse", w.BaseSHA+"^{tree}")
	if strings.TrimSpace(string(tree)) != strings.TrimSpace(want) {
		t.Fatalf("tree of the worktree %s, base tree %s", tree, want)
	}
	if head := strings.TrimSpace(run(t, w.Dir, "git", "rev-parse", "HEAD")); head != w.BaseSHA {
		t.Fatalf("HEAD %s, base %s", head, w.BaseSHA)
	}
	if fi, err := os.Stat(filepath.Join(w.Dir, "a.txt")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("a.txt mode %v (%v), want 0644", fi.Mode(), err)
	}
	// A new file is seen: no exclude pattern of the last task hides it.
	os.WriteFile(filepath.Join(w.Dir, "z.hidden"), []byte("x\n"), 0o644)
	defer os.Remove(filepath.Join(w.Dir, "z.hidden"))
	if out := run(t, w.Dir, "git", "status", "--porcelain"); out != "?? z.hidden\n" {
		t.Fatalf("a new file after reuse: status %q, want it untracked", out)
	}
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// TestParkedWorktreeReuseRule is the rule that makes reuse safe: whatever a
// task did to its worktree, the next task's tree is exactly its base.
func TestParkedWorktreeReuseRule(t *testing.T) {
	bare, url := gitfixture.NewRepo(t, parkFiles)
	m, logs := parkingManager(t)
	ctx := context.Background()
	w := prepare(t, m, url, "t1")
	vandalize(t, w)
	if err := m.Remove(ctx, w); err != nil {
		t.Fatal(err)
	}
	if n := len(m.parked("acme/calc")); n != 1 {
		t.Fatalf("%d parked worktrees after the task, want 1:\n%s", n, logs)
	}
	if es, _ := os.ReadDir(filepath.Join(m.dir, "worktrees")); len(es) != 0 {
		t.Fatalf("the task's directory is still in worktrees/: %v", es)
	}
	keep := inode(t, filepath.Join(m.parked("acme/calc")[0], "dir", "b.txt"))
	gitfixture.Commit(t, bare, "main", map[string]string{"a.txt": "two\n"}) // the base moves on
	w2 := prepare(t, m, url, "t2")
	assertPristine(t, w2)
	if b, _ := os.ReadFile(filepath.Join(w2.Dir, "a.txt")); string(b) != "two\n" {
		t.Fatalf("a.txt = %q, want the new base's", b)
	}
	if inode(t, filepath.Join(w2.Dir, "dir", "b.txt")) != keep {
		t.Errorf("an unchanged file was rewritten: the parked worktree was not reused or its checkout touched everything")
	}
	if strings.Contains(logs.String(), "discarded") {
		t.Errorf("a cleanly parked worktree was discarded:\n%s", logs)
	}
	if got := strings.TrimSpace(run(t, w2.Dir, "git", "branch", "--show-current")); got != "warden/1-x" {
		t.Errorf("branch %q, want the task's", got)
	}
}

// TestCorruptParkedWorktreeIsRebuilt: a parked worktree git cannot trust is
// discarded and the task gets a fresh one, never the damaged one.
func TestCorruptParkedWorktreeIsRebuilt(t *testing.T) {
	for name, corrupt := range map[string]func(dir, admin string){
		"git file": func(dir, _ string) { os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: /nowhere\n"), 0o644) },
		"git dir": func(dir, _ string) {
			os.Remove(filepath.Join(dir, ".git"))
			os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755)
		},
		"index":      func(_, admin string) { os.WriteFile(filepath.Join(admin, "index"), []byte("DIRC garbage"), 0o644) },
		"admin HEAD": func(_, admin string) { os.WriteFile(filepath.Join(admin, "HEAD"), []byte("nonsense\n"), 0o644) },
		"foreign link": func(dir, _ string) {
			os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+t.TempDir()+"\n"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, url := gitfixture.NewRepo(t, parkFiles)
			m, logs := parkingManager(t)
			w := prepare(t, m, url, "t1")
			admin := w.gitDir
			if err := m.Remove(context.Background(), w); err != nil {
				t.Fatal(err)
			}
			parked := m.parked("acme/calc")
			if len(parked) != 1 {
				t.Fatalf("parked %v", parked)
			}
			admin = filepath.Join(filepath.Dir(admin), filepath.Base(admin))
			os.WriteFile(filepath.Join(parked[0], "planted.txt"), []byte("x\n"), 0o644)
			corrupt(parked[0], admin)
			w2 := prepare(t, m, url, "t2")
			assertPristine(t, w2)
			if !strings.Contains(logs.String(), "parked worktree discarded") {
				t.Errorf("the corrupt worktree was not discarded:\n%s", logs)
			}
			if left := m.parked("acme/calc"); len(left) != 0 {
				t.Errorf("parked after the take: %v", left)
			}
			out := run(t, m.mirrorDir("acme/calc"), "git", "worktree", "list", "--porcelain")
			if n := strings.Count(out, "worktree "); n != 2 {
				t.Errorf("mirror lists %d worktrees, want the main one and the task's:\n%s", n, out)
			}
		})
	}
}

// TestParkKeepsAtMostPark: a repository keeps Options.Park worktrees; more
// finished at once are removed.
func TestParkKeepsAtMostPark(t *testing.T) {
	_, url := gitfixture.NewRepo(t, parkFiles)
	m, _ := parkingManager(t)
	ctx := context.Background()
	a := prepare(t, m, url, "t1")
	b, err := m.Prepare(ctx, PrepareRequest{Repo: "acme/calc", CloneURL: url, BaseBranch: "main", Branch: "warden/2-y", TaskKey: "t2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []*Worktree{a, b} {
		if err := m.Remove(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(m.parked("acme/calc")); n != 1 {
		t.Fatalf("%d parked, want 1", n)
	}
	out := run(t, m.mirrorDir("acme/calc"), "git", "worktree", "list", "--porcelain")
	if n := strings.Count(out, "worktree "); n != 2 {
		t.Errorf("mirror lists %d worktrees, want the main one and the parked one:\n%s", n, out)
	}
	if br := run(t, m.mirrorDir("acme/calc"), "git", "branch", "--list", "warden/*"); br != "" {
		t.Errorf("task branches left in the mirror: %s", br)
	}
}
