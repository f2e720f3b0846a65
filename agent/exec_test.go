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
)

// script writes an agent command to a directory outside the worktree.
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
	e := NewExec(cmd, []string{"AGENT_EXTRA=yes"})
	out, err := e.Run(context.Background(), "implement", dir, "Fix Add.\nIt subtracts.")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "calc.go"))
	if string(b) != "func Add(a, b int) int { return a + b }\n" {
		t.Errorf("calc.go = %q, want the agent's edit", b)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	for _, want := range []string{"stage=implement\n", "prompt=Fix Add.\nIt subtracts.\n", "pwd=" + realDir + "\n", "token= key= extra=yes\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q lacks %q", out, want)
		}
	}
}

// pidAlive reports whether pid is a process that has not exited (a zombie
// waiting for a reaper counts as gone).
func pidAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

// waitGone polls until pid has exited; the bound is generous.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !pidAlive(pid) {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d survived", pid)
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && strings.HasSuffix(string(b), "\n") {
			return pid
		}
	}
	t.Fatal("the agent never wrote its child's pid")
	return 0
}

func TestExecAgentTimeoutKillsProcessGroup(t *testing.T) {
	dir := worktree(t, nil)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	e := NewExec(script(t, `sleep 300 &
echo $! > `+pidFile+`.tmp && mv `+pidFile+`.tmp `+pidFile+`
wait
`), nil)
	e.Timeout = 500 * time.Millisecond
	start := time.Now()
	_, err := e.Run(context.Background(), "fix", dir, "")
	if elapsed := time.Since(start); elapsed > 60*time.Second {
		t.Fatalf("Run took %s", elapsed)
	}
	v := outcome.Classify(err)
	if v.Class != outcome.Transient || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("%v classified %s, want a transient timeout", err, v.Class)
	}
	waitGone(t, readPID(t, pidFile))
}

// An agent that exits but leaves a process behind does not keep it running
// (the worktree is about to be judged, committed and removed), nor is Run
// held by a leftover that still has the agent's stdout open.
func TestExecAgentLeavesNoProcessBehind(t *testing.T) {
	for name, redirect := range map[string]string{"detached": ">/dev/null 2>&1", "holding stdout": ""} {
		t.Run(name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "child.pid")
			e := NewExec(script(t, `sleep 300 `+redirect+` &
echo $! > `+pidFile+`
echo done
`), nil)
			e.Timeout = 2 * time.Minute
			start := time.Now()
			out, err := e.Run(context.Background(), "implement", worktree(t, nil), "")
			if err != nil || out != "done\n" {
				t.Fatalf("Run = %q, %v", out, err)
			}
			if elapsed := time.Since(start); elapsed > 30*time.Second {
				t.Fatalf("Run took %s after the agent exited", elapsed)
			}
			waitGone(t, readPID(t, pidFile))
		})
	}
}

func TestExecAgentCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	_, err := NewExec("sleep 300", nil).Run(ctx, "plan", worktree(t, nil), "")
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
`), nil)
	out, err := e.Run(context.Background(), "implement", worktree(t, nil), "")
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
	_, err := NewExec("true", nil).Run(context.Background(), "plan", filepath.Join(t.TempDir(), "missing"), "")
	if got := outcome.ClassOf(err); got != outcome.Deterministic {
		t.Fatalf("%v classified %s, want deterministic", err, got)
	}
}
