package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/guards"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/test/gitfixture"
)

func newManager(t *testing.T) *Manager {
	m, err := New(t.TempDir(), Options{GitTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func prepare(t *testing.T, m *Manager, url, key string) *Worktree {
	t.Helper()
	w, err := m.Prepare(context.Background(), PrepareRequest{Repo: "acme/calc", CloneURL: url, BaseBranch: "main", Branch: "warden/1-x", TaskKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestMirrorIsFetchedBeforeEachTask(t *testing.T) {
	bare, url := gitfixture.NewRepo(t, map[string]string{"a.txt": "one\n"})
	m := newManager(t)
	w := prepare(t, m, url, "t1")
	m.Remove(context.Background(), w)
	gitfixture.Commit(t, bare, "main", map[string]string{"a.txt": "two\n"})
	w = prepare(t, m, url, "t1")
	if b, _ := w.ReadFile("a.txt"); string(b) != "two\n" {
		t.Fatalf("stale mirror: %q", b)
	}
}

func TestChangesSeeEverything(t *testing.T) {
	big := strings.Repeat("x\n", 50)
	_, url := gitfixture.NewRepo(t, map[string]string{"keep.go": "a\nb\n", "gone.txt": "bye\n", "old.txt": big, "big.go": big})
	m := newManager(t)
	w := prepare(t, m, url, "t2")
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(w.Dir, p)), 0o755)
		os.WriteFile(filepath.Join(w.Dir, p), []byte(s), 0o644)
	}
	write("keep.go", "a\nB\nc\n")
	write("new/untracked.go", "token := \"ghp_0123456789abcdefghijklmnopqrstuvwxyz\"\n")
	write("img.bin", "\x00\x01\x02binary")
	write("big.go", "x\n")
	os.Remove(filepath.Join(w.Dir, "gone.txt"))
	os.Rename(filepath.Join(w.Dir, "old.txt"), filepath.Join(w.Dir, "renamed.txt"))
	changes, err := w.Changes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]guards.Change{}
	for _, c := range changes {
		by[c.Path] = c
	}
	if c := by["keep.go"]; c.Status != guards.Modified || c.Added != 2 || c.Deleted != 1 || c.OldLines != 2 || c.NewLines != 3 {
		t.Errorf("keep.go = %+v", c)
	}
	if c := by["new/untracked.go"]; c.Status != guards.Added || len(c.AddedText) != 1 {
		t.Errorf("untracked = %+v", c)
	}
	if c := by["gone.txt"]; c.Status != guards.Deleted {
		t.Errorf("deleted = %+v", c)
	}
	if c := by["renamed.txt"]; c.Status != guards.Renamed || c.OldPath != "old.txt" {
		t.Errorf("renamed = %+v", c)
	}
	if c := by["img.bin"]; !c.Binary {
		t.Errorf("binary = %+v", c)
	}
	if c := by["big.go"]; c.OldLines != 50 || c.NewLines != 1 {
		t.Errorf("truncated = %+v", c)
	}
	if err := guards.CheckDiff(changes, guards.Limits{MaxFiles: 10, MaxLines: 1000}); len(guards.AsViolations(err)) < 3 {
		t.Errorf("guards should refuse secret, binary and truncation: %v", err)
	}
	diff, _ := w.Diff(context.Background())
	if !strings.Contains(diff, "+B") || !strings.Contains(diff, "new/untracked.go") {
		t.Errorf("diff:\n%s", diff)
	}
}

func TestCommitPushIdempotentAndTokenNeverOnDisk(t *testing.T) {
	bare, url := gitfixture.NewRepo(t, map[string]string{"a.txt": "one\n"})
	m := newManager(t)
	w := prepare(t, m, url, "t3")
	ctx := context.Background()
	if _, err := w.Commit(ctx, "msg", "Bot", "bot@x"); err != ErrNothingToCommit {
		t.Fatalf("clean commit: %v", err)
	}
	os.WriteFile(filepath.Join(w.Dir, "a.txt"), []byte("two\n"), 0o644)
	if _, err := w.Changes(ctx); err != nil { // the guards judge before every commit
		t.Fatal(err)
	}
	sha1, err := w.Commit(ctx, "msg", "Bot", "bot@x")
	if err != nil {
		t.Fatal(err)
	}
	if sha2, err := w.Commit(ctx, "msg", "Bot", "bot@x"); err != nil || sha2 != sha1 {
		t.Fatalf("second commit: %s %v", sha2, err)
	}
	const token = "ghs_SECRETTOKEN0123456789abcdefghijkl"
	for range 2 {
		if err := w.Push(ctx, url, token); err != nil {
			t.Fatal(err)
		}
	}
	if got := gitfixture.ReadFile(t, bare, "warden/1-x", "a.txt"); got != "two\n" {
		t.Fatalf("pushed %q", got)
	}
	out, _ := exec.Command("grep", "-rl", "SECRETTOKEN", m.dir, bare).CombinedOutput()
	if strings.TrimSpace(string(out)) != "" {
		t.Fatalf("token written to disk: %s", out)
	}
}

func TestSweepAndReset(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"a.txt": "one\n"})
	m := newManager(t)
	w := prepare(t, m, url, "t4")
	os.WriteFile(filepath.Join(w.Dir, "junk.txt"), []byte("x"), 0o644)
	if err := w.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, "junk.txt")); !os.IsNotExist(err) {
		t.Fatal("reset left an untracked file")
	}
	m2, _ := New(m.dir, Options{})
	if n, err := m2.Sweep(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweep = %d %v", n, err)
	}
	if _, err := os.Stat(w.Dir); !os.IsNotExist(err) {
		t.Fatal("worktree survived the sweep")
	}
	if _, err := w.ReadFile("../../etc/passwd"); err == nil {
		t.Fatal("ReadFile escaped the worktree")
	}
}

func TestRunnerKillsGroupCapsOutputScrubsEnv(t *testing.T) {
	t.Setenv("WARDEN_WEBHOOK_SECRET", "whsec-do-not-leak")
	t.Setenv("GITHUB_TOKEN", "ghs_do_not_leak")
	dir := t.TempDir()
	// A process started with a secret in its environment, as Warden is:
	// /proc/<pid>/environ shows what a process was started with, not what
	// Setenv changed later.
	warden := exec.Command("sleep", "60")
	warden.Env = []string{"WARDEN_LLM_API_KEY=sk-do-not-leak-proc"}
	if err := warden.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { warden.Process.Kill(); warden.Wait() }()
	// Every environment the command can find, its parent's (Warden's, unsandboxed) included.
	r := Run(context.Background(), Command{Tree: sandbox.Tree{Dir: dir}, Line: `env; for f in /proc/$PPID/environ /proc/*/environ; do tr '\0' '\n' < "$f"; done 2>/dev/null | grep -i leak; true`})
	if r.ExitCode != 0 || strings.Contains(r.Output, "do-not-leak") || strings.Contains(r.Output, "do_not_leak") || !strings.Contains(r.Output, "PATH=") {
		t.Fatalf("env: %+v", r)
	}
	start := time.Now()
	r = Run(context.Background(), Command{Tree: sandbox.Tree{Dir: dir}, Line: "(sleep 30 &) ; sleep 30", Timeout: 300 * time.Millisecond})
	if !r.TimedOut || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout: %+v after %s", r, time.Since(start))
	}
	r = Run(context.Background(), Command{Tree: sandbox.Tree{Dir: dir}, Line: "yes | head -c 300000", MaxOutput: 1000})
	if !r.Truncated || len(r.Output) > 1200 {
		t.Fatalf("cap: truncated=%v len=%d", r.Truncated, len(r.Output))
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	if r = Run(ctx, Command{Tree: sandbox.Tree{Dir: dir}, Line: "sleep 30"}); !r.Canceled {
		t.Fatalf("cancel: %+v", r)
	}
	if r = Run(context.Background(), Command{Tree: sandbox.Tree{Dir: dir}, Line: "exit 3"}); r.ExitCode != 3 || r.Err != nil {
		t.Fatalf("exit code: %+v", r)
	}
}

func TestCorrupt(t *testing.T) {
	if !Corrupt(&GitError{Stderr: "fatal: not a git repository (or any parent up to mount point /)"}) || Corrupt(&GitError{Stderr: "fatal: could not read Username"}) {
		t.Fatal("Corrupt")
	}
	if !Corrupt(&GitError{Stderr: "error: object file .git/objects/ab/cdef is empty\nfatal: bad object HEAD"}) {
		t.Fatal("an empty object file is damage")
	}
	if Corrupt(&GitError{Stderr: "fatal: unable to write loose object file: No space left on device\nfatal: unpack-objects failed"}) {
		t.Fatal("a full disk is not damage")
	}
	if !Corrupt(fmt.Errorf("git diff: %w", sandbox.ErrTreeChanged)) {
		t.Fatal("a changed .git means a fresh worktree")
	}
}

// A task's worktree left behind — on disk, or only registered in the mirror
// with its directory gone — does not stop the task from preparing again.
func TestPrepareReplacesAStaleWorktree(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"a.txt": "one\n"})
	m := newManager(t)
	w := prepare(t, m, url, "stale")
	os.WriteFile(filepath.Join(w.Dir, "junk.txt"), []byte("left over"), 0o644)
	w = prepare(t, m, url, "stale") // still on disk
	if _, err := os.Stat(filepath.Join(w.Dir, "junk.txt")); !os.IsNotExist(err) {
		t.Fatalf("the stale worktree's files survived: %v", err)
	}
	os.RemoveAll(w.Dir) // registered, directory gone
	w = prepare(t, m, url, "stale")
	if b, err := w.ReadFile("a.txt"); err != nil || string(b) != "one\n" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
}
