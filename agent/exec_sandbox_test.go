package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/sandbox"
)

// The agent command finds no Warden secret: not in its environment, not in
// its parent's, not in any process's it can list. A process started with a
// secret in its environment stands in for Warden: /proc/<pid>/environ shows
// what a process was started with, which Setenv does not change.
func TestExecAgentSeesNoWardenSecret(t *testing.T) {
	t.Setenv("WARDEN_GITHUB_TOKEN", "ghs_do_not_leak")
	t.Setenv("WARDEN_WEBHOOK_SECRET", "whsec-do-not-leak")
	arg := sleepArg(t)
	warden := exec.Command("sleep", arg)
	warden.Env = []string{"WARDEN_LLM_API_KEY=sk-do-not-leak-proc"}
	if err := warden.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = warden.Process.Kill(); _ = warden.Wait() }()
	e := NewExec(`env; cat /proc/$PPID/environ; for f in /proc/*/environ /proc/*/cmdline; do tr '\0' '\n' < "$f"; echo; done 2>/dev/null; true`)
	out, err := e.Run(context.Background(), "plan", sandbox.Tree{Dir: worktree(t, nil)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "WARDEN_STAGE=plan") {
		t.Fatalf("the command's own environment is missing from %q", out)
	}
	for _, s := range []string{"do-not-leak", "do_not_leak", arg} {
		if strings.Contains(out, s) {
			t.Errorf("%q visible to the agent command:\n%s", s, out)
		}
	}
}

// The agent writes the worktree and its private HOME, nothing else: not a
// directory beside the worktree, not its own program's directory, not /etc.
func TestExecAgentWritesOnlyWorktree(t *testing.T) {
	dir := worktree(t, nil)
	outside := t.TempDir()
	prog := script(t, `for f in "$1/escaped" "$2/escaped" /etc/warden-escaped; do
  if echo x > "$f"; then echo "wrote $f"; fi
done 2>/dev/null
echo x > "$HOME/ok" && echo home-ok
echo x > in-worktree && echo worktree-ok
`)
	out, err := NewExec(prog+" "+outside+" "+filepath.Dir(prog)).Run(context.Background(), "implement", sandbox.Tree{Dir: dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "worktree-ok") || !strings.Contains(out, "home-ok") {
		t.Fatalf("the agent could not write its worktree or HOME: %q", out)
	}
	for _, f := range []string{filepath.Join(outside, "escaped"), filepath.Join(filepath.Dir(prog), "escaped"), "/etc/warden-escaped"} {
		if _, err := os.Stat(f); err == nil {
			os.Remove(f)
			t.Errorf("the agent wrote %s (output %q)", f, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "in-worktree")); err != nil {
		t.Error("the worktree write did not land")
	}
}

// The program's directory is bound read-only unless the sandbox shows it
// anyway or it holds Warden's settings.
func TestExecProgramDir(t *testing.T) {
	prog := script(t, "true\n")
	if got := programDir(prog + " --flag"); got != filepath.Dir(prog) {
		t.Errorf("programDir(%s) = %q", prog, got)
	}
	if got := programDir("sh -c true"); got != "" {
		t.Errorf("a system program's directory is bound: %q", got)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(prog), ".env"), []byte("WARDEN_X=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := programDir(prog); got != "" {
		t.Errorf("a directory holding .env is bound: %q", got)
	}
}
