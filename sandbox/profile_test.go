package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var kinds = []Kind{Setup, Test, Security, ExecAgent, AgentCLI}

// gitTree makes a bare repository with one commit and a worktree of it, and
// returns the tree as Warden records it.
func gitTree(t *testing.T) Tree {
	t.Helper()
	root := t.TempDir()
	mirror, dir := filepath.Join(root, "mirror.git"), filepath.Join(root, "wt")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(root, "init", "-q", "--bare", "--initial-branch=main", mirror)
	work := filepath.Join(root, "seed")
	git(root, "init", "-q", "--initial-branch=main", work)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
	git(work, "add", "-A")
	git(work, "commit", "-qm", "seed")
	git(work, "push", "-q", mirror, "main")
	git(mirror, "worktree", "add", "-q", "--detach", dir, "main")
	return Tree{Dir: dir, GitDir: filepath.Join(mirror, "worktrees", "wt"), Common: mirror}
}

func TestTreeVerify(t *testing.T) {
	tr := gitTree(t)
	if err := tr.Verify(); err != nil {
		t.Fatalf("the tree git made: %v", err)
	}
	other := t.TempDir()
	for name, tamper := range map[string]func(string){
		"gitdir elsewhere": func(p string) { os.WriteFile(p, []byte("gitdir: "+other+"\n"), 0o644) },
		"gitdir /proc":     func(p string) { os.WriteFile(p, []byte("gitdir: /proc\n"), 0o644) },
		"extra line":       func(p string) { os.WriteFile(p, []byte(DotGit(tr.GitDir)+"x\n"), 0o644) },
		"directory":        func(p string) { os.Remove(p); os.Mkdir(p, 0o755) },
		"symlink": func(p string) {
			os.Remove(p)
			os.WriteFile(other+"/g", []byte(DotGit(tr.GitDir)), 0o644)
			os.Symlink(other+"/g", p)
		},
		"gone": func(p string) { os.Remove(p) },
		"huge": func(p string) { os.WriteFile(p, make([]byte, 1<<20), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			tr := gitTree(t)
			tamper(filepath.Join(tr.Dir, ".git"))
			if err := tr.Verify(); !errors.Is(err, ErrTreeChanged) {
				t.Fatalf("Verify = %v", err)
			}
			marker := filepath.Join(tr.Dir, "ran")
			r := Run(context.Background(), Profile{Kind: Test, Tree: tr, Argv: []string{"touch", marker}, Env: []string{"PATH=/usr/bin:/bin"}})
			if !errors.Is(r.Err, ErrTreeChanged) {
				t.Fatalf("Run err = %v", r.Err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("a command ran in a tree whose .git changed")
			}
		})
	}
	plain := Tree{Dir: t.TempDir()}
	if err := plain.Verify(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(plain.Dir, ".git"), []byte(DotGit(tr.GitDir)), 0o644)
	if err := plain.Verify(); !errors.Is(err, ErrTreeChanged) {
		t.Fatalf("a .git in a tree recorded without one: %v", err)
	}
	if err := (Tree{Dir: tr.Dir, GitDir: tr.GitDir, Common: other}).Verify(); err == nil || errors.Is(err, ErrTreeChanged) {
		t.Fatalf("a git directory outside its repository: %v", err)
	}
}

// In every kind of process, with either network policy, git works read-only
// in the tree and neither the .git file nor the repository can be written.
func TestGitReadOnlyInEveryKind(t *testing.T) {
	probe := `git status --short >/dev/null 2>&1 && echo git-works
printf 'gitdir: /proc\n' > .git 2>/dev/null && echo dotgit-written
rm -f .git 2>/dev/null; mv .git moved 2>/dev/null && echo dotgit-moved
[ -f .git ] || echo dotgit-gone
echo x > "$COMMON/config" 2>/dev/null && echo config-written
mkdir "$COMMON/hooks/x" 2>/dev/null && echo hooks-written
echo x > "$GITDIR/HEAD" 2>/dev/null && echo head-written
echo x > "$COMMON/objects/info/alternates" 2>/dev/null && echo alternates-written
echo ok > file && echo tree-ok
true`
	for _, k := range kinds {
		for _, n := range []Network{NoNetwork, Egress} {
			t.Run(string(k)+"/"+n.String(), func(t *testing.T) {
				tr := gitTree(t)
				_, out := try(t, Profile{Kind: k, Tree: tr, Network: n, Argv: []string{"sh", "-c", probe},
					Env: []string{"PATH=/usr/bin:/bin", "COMMON=" + tr.Common, "GITDIR=" + tr.GitDir}})
				if !strings.Contains(out, "git-works") || !strings.Contains(out, "tree-ok") {
					t.Fatalf("git or the tree does not work: %s", out)
				}
				for _, bad := range []string{"written", "moved", "gone"} {
					if strings.Contains(out, bad) {
						t.Fatalf("%s:\n%s", bad, out)
					}
				}
				if err := tr.Verify(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// A command cannot mount its way around .git: not from a user namespace of
// its own either.
func TestDotGitStaysReadOnlyInNestedNamespace(t *testing.T) {
	tr := gitTree(t)
	line := `unshare -Urm sh -c 'umount -l ` + tr.Dir + `/.git 2>/dev/null; echo "gitdir: /proc" > ` + tr.Dir + `/.git && echo written'; true`
	_, out := try(t, Profile{Tree: tr, Argv: []string{"sh", "-c", line}})
	if strings.Contains(out, "written") || tr.Verify() != nil {
		t.Fatalf("nested namespace rewrote .git: %s", out)
	}
}

// Each cap stops what exceeds it and is named in the result.
func TestCapsAreEnforcedAndNamed(t *testing.T) {
	cases := []struct {
		name, line string
		lim        Limits
		want       string
	}{
		{"file size", "head -c 3000000 /dev/zero > big; echo rc=$?", Limits{FileSize: 1 << 20}, "file size cap: big reached 1 MiB"},
		{"disk", "for i in 1 2 3 4; do head -c 900000 /dev/zero > f$i; done", Limits{Disk: 2 << 20}, "disk cap: the worktree holds"},
		{"processes", "for i in $(seq 60); do sleep 5 & done; wait", Limits{Processes: 30}, "process cap: 30"},
		{"memory", "python3 -c 'b = bytearray(400 << 20)'", Limits{Memory: 128 << 20}, "memory cap: 128 MiB"},
		{"tree memory", "for i in 1 2 3; do python3 -c 'import time; b = b\"x\" * (60 << 20); time.sleep(3)' & done; wait", Limits{TreeMemory: 96 << 20}, "memory cap: the command's processes reached 96 MiB together"},
	}
	cg := newCgroup(DefaultLimits())
	cg.remove()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Where the kernel cannot be asked (no writable control group),
			// the tree's memory is not capped and uid 0 has no process cap.
			if cg == nil && (c.name == "tree memory" || c.name == "processes" && os.Geteuid() == 0) {
				t.Skip("no control group can be made here; the documented gap (docs/operations.md)")
			}
			wt := t.TempDir()
			r, out := try(t, Profile{Tree: Tree{Dir: wt}, Argv: []string{"sh", "-c", c.line}, Limits: c.lim})
			if !strings.Contains(r.Cap, c.want) {
				t.Fatalf("cap %q, want %q (exit %d)\n%s", r.Cap, c.want, r.ExitCode, out)
			}
			if c.name == "file size" {
				if fi, err := os.Stat(filepath.Join(wt, "big")); err != nil || fi.Size() != 1<<20 {
					t.Fatalf("the file grew past the cap: %v %v", fi.Size(), err)
				}
			}
		})
	}
	// Within the caps nothing is named.
	r, out := try(t, Profile{Tree: Tree{Dir: t.TempDir()}, Argv: []string{"sh", "-c", "echo small > f; sleep 0.1 & wait"}})
	if r.Cap != "" || r.ExitCode != 0 {
		t.Fatalf("cap %q exit %d: %s", r.Cap, r.ExitCode, out)
	}
}

// The process cap counts the sandbox's own processes, not the host user's:
// a cap below what the host user runs still lets a command start.
func TestProcessCapCountsOnlyTheSandbox(t *testing.T) {
	var host []*exec.Cmd
	for range 40 {
		c := exec.Command("sleep", "30")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		host = append(host, c)
	}
	defer func() {
		for _, c := range host {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	r, out := try(t, Profile{Tree: Tree{Dir: t.TempDir()}, Argv: []string{"sh", "-c", "sleep 0.1 & sleep 0.1 & wait; echo fine"}, Limits: Limits{Processes: 20}})
	if r.ExitCode != 0 || !strings.Contains(out, "fine") {
		t.Fatalf("exit %d cap %q: %s", r.ExitCode, r.Cap, out)
	}
}

func TestProfileRefusesWhatWouldWeakenIt(t *testing.T) {
	wt := t.TempDir()
	for name, p := range map[string]Profile{
		"no kind":    {Tree: Tree{Dir: wt}, Argv: []string{"true"}},
		"root":       {Kind: Test, Tree: Tree{Dir: wt}, Argv: []string{"true"}, ReadOnly: []string{"/"}},
		"proc":       {Kind: Test, Tree: Tree{Dir: wt}, Argv: []string{"true"}, ReadOnly: []string{"/proc/1"}},
		"relative":   {Kind: Test, Tree: Tree{Dir: wt}, Argv: []string{"true"}, ReadOnly: []string{"etc"}},
		"data dir":   {Kind: Test, Tree: Tree{Dir: wt}, Argv: []string{"true"}, ReadOnly: []string{filepath.Dir(wt)}},
		"the tree":   {Kind: Test, Tree: Tree{Dir: wt}, Argv: []string{"true"}, ReadOnly: []string{wt}},
		"no tree":    {Kind: Test, Argv: []string{"true"}},
		"no command": {Kind: Test, Tree: Tree{Dir: wt}},
	} {
		if r := Run(context.Background(), p); r.Err == nil {
			t.Errorf("%s: ran", name)
		}
	}
	_ = time.Second
}
