package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
)

// script writes an agent command to a directory outside the worktree; the
// sandbox shows that directory read-only (programDir).
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func worktree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestExecAgentEditsWorktree(t *testing.T) {
	t.Setenv("WARDEN_GITHUB_TOKEN", "ghs_must_not_leak")
	t.Setenv("OPENAI_API_KEY", testKey)
	dir := worktree(t, map[string]string{"calc.go": "func Add(a, b int) int { return a - b }\n"})
	cmd := script(t, `set -e
prompt=$(cat)
sed 's/a - b/a + b/' calc.go > calc.go.new && mv calc.go.new calc.go
printf 'stage=%s\n' "$WARDEN_STAGE"
printf 'prompt=%s\n' "$prompt"
printf 'pwd=%s\n' "$(pwd -P)"
printf 'token=%s key=%s extra=%s\n' "$WARDEN_GITHUB_TOKEN" "$OPENAI_API_KEY" "$AGENT_EXTRA"
`)
	e := NewExec(cmd)
	out, err := e.Run(context.Background(), "implement", sandbox.Tree{Dir: dir}, "Fix Add.\nIt subtracts.")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "calc.go"))
	if string(b) != "func Add(a, b int) int { return a + b }\n" {
		t.Errorf("calc.go = %q, want the agent's edit", b)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	for _, want := range []string{"stage=implement\n", "prompt=Fix Add.\nIt subtracts.\n", "pwd=" + realDir + "\n", "token= key= extra=\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q lacks %q", out, want)
		}
	}
}

// procsWith lists the host's processes whose command line contains arg: a
// command in the sandbox has its own PID namespace, so the pids it sees mean
// nothing out here.
func procsWith(arg string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), "\x00"+arg) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
			if len(f) > 0 && f[0] == "Z" {
				continue // a zombie waiting for a reaper has exited
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// sleepArg is a sleep duration no other process uses, to find the sleep.
func sleepArg(t *testing.T) string {
	return strconv.Itoa(3000+os.Getpid()%1000) + "." + strconv.Itoa(int(time.Now().UnixNano()%1000))
}

// waitGone polls until no process has arg; the bound is generous.
func waitGone(t *testing.T, arg string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if len(procsWith(arg)) == 0 {
			return
		}
	}
	for _, pid := range procsWith(arg) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	t.Fatalf("sleep %s survived", arg)
}

func TestExecAgentTimeoutKillsProcessTree(t *testing.T) {
	dir := worktree(t, nil)
	arg := sleepArg(t)
	e := NewExec(script(t, `sleep `+arg+` &
wait
`))
	e.Timeout = 3 * time.Second
	seen := make(chan bool, 1)
	go func() {
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if len(procsWith(arg)) > 0 {
				seen <- true
				return
			}
		}
		seen <- false
	}()
	start := time.Now()
	_, err := e.Run(context.Background(), "fix", sandbox.Tree{Dir: dir}, "")
	if elapsed := time.Since(start); elapsed > 60*time.Second {
		t.Fatalf("Run took %s", elapsed)
	}
	v := outcome.Classify(err)
	if v.Class != outcome.Transient || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("%v classified %s, want a transient timeout", err, v.Class)
	}
	if !<-seen {
		t.Fatal("the agent's child never ran")
	}
	waitGone(t, arg)
}

// An agent that exits but leaves a process behind does not keep it running
// (the worktree is about to be judged, committed and removed), nor is Run
// held by a leftover that still has the agent's stdout open.
func TestExecAgentLeavesNoProcessBehind(t *testing.T) {
	for name, redirect := range map[string]string{"detached": ">/dev/null 2>&1", "holding stdout": ""} {
		t.Run(name, func(t *testing.T) {
			arg := sleepArg(t)
			e := NewExec(script(t, `sleep `+arg+` `+redirect+` &
kill -0 $! && echo done
`))
			e.Timeout = 2 * time.Minute
			start := time.Now()
			out, err := e.Run(context.Background(), "implement", sandbox.Tree{Dir: worktree(t, nil)}, "")
			if err != nil || out != "done\n" {
				t.Fatalf("Run = %q, %v", out, err)
			}
			if elapsed := time.Since(start); elapsed > 30*time.Second {
				t.Fatalf("Run took %s after the agent exited", elapsed)
			}
			waitGone(t, arg)
		})
	}
}

func TestExecAgentCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	_, err := NewExec("sleep 300").Run(ctx, "plan", sandbox.Tree{Dir: worktree(t, nil)}, "")
	if got := outcome.Classify(err).Class; got != outcome.Canceled {
		t.Fatalf("%v classified %s, want canceled", err, got)
	}
}

// A failing command's error carries the end of its stderr, where the reason is.
func TestExecAgentFailureQuotesStderrTail(t *testing.T) {
	// 2 MiB of noise: more than the 1 MiB kept of any stream.
	e := NewExec(script(t, `echo "first line" >&2
yes "noise line of a chatty agent, repeated to fill stderr" | head -n 40000 >&2
echo "fatal: the model refused" >&2
echo partial stdout
exit 3
`))
	out, err := e.Run(context.Background(), "implement", sandbox.Tree{Dir: worktree(t, nil)}, "")
	var oe *outcome.Error
	if !errors.As(err, &oe) {
		t.Fatalf("%v, want an *outcome.Error", err)
	}
	if oe.Class != outcome.Transient || oe.Stage != "implement" || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("error %v (class %s, stage %q)", err, oe.Class, oe.Stage)
	}
	if !strings.HasSuffix(oe.Output, "fatal: the model refused\n") {
		t.Errorf("Output does not end with the last stderr line: …%q", oe.Output[max(0, len(oe.Output)-200):])
	}
	if len(oe.Output) > 4000 || strings.Contains(oe.Output, "first line") {
		t.Errorf("Output is %d bytes and keeps the start of stderr; want only its tail", len(oe.Output))
	}
	if out != "partial stdout\n" {
		t.Errorf("stdout %q", out)
	}
}

func TestExecAgentCannotStart(t *testing.T) {
	_, err := NewExec("true").Run(context.Background(), "plan", sandbox.Tree{Dir: filepath.Join(t.TempDir(), "missing")}, "")
	if got := outcome.ClassOf(err); got != outcome.Deterministic {
		t.Fatalf("%v classified %s, want deterministic", err, got)
	}
}
