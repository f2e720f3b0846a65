package fakemodel

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cliBin finds an agent CLI installed by scripts/agent-clis.sh; a missing
// one fails the test (make test installs them).
func cliBin(t *testing.T, name string) string {
	dir := os.Getenv("WARDEN_AGENT_CLIS")
	if dir == "" {
		dir = "/var/cache/warden/agent-clis"
	}
	p := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed: run scripts/agent-clis.sh (%v)", name, err)
	}
	return p
}

// script reads a.txt, edits it, runs a command and says it is done.
func script(tt AgentTurn) AgentStep {
	switch tt.Turn {
	case 0:
		return AgentStep{Read: "a.txt"}
	case 1:
		return AgentStep{Edit: &EditStep{Path: "a.txt", Old: "hello", New: "goodbye"}}
	case 2:
		return AgentStep{Run: "cat a.txt > seen.txt"}
	}
	return AgentStep{Text: "Done."}
}

func worktree(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatal(string(out))
	}
	return dir
}

func runCLI(t *testing.T, dir string, env []string, args ...string) string {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", args[0], err, out)
	}
	return string(out)
}

func checkEdited(t *testing.T, s *Server, dir string) {
	b, _ := os.ReadFile(filepath.Join(dir, "seen.txt"))
	if string(b) != "goodbye\n" {
		t.Fatalf("the scripted read, edit and command did not all run: seen.txt %q", b)
	}
	for _, r := range s.Requests() {
		if r.Key != "dummy" {
			t.Fatalf("request with key %q", r.Key)
		}
	}
	if n := len(s.RequestsFor("agent")); n < 4 {
		t.Fatalf("%d agent calls, want 4", n)
	}
}

func TestClaudeCodeFollowsTheScript(t *testing.T) {
	s := New()
	defer s.Close()
	s.Agent(script)
	dir := worktree(t)
	runCLI(t, dir, []string{"ANTHROPIC_BASE_URL=" + s.URL(), "ANTHROPIC_API_KEY=dummy", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"},
		cliBin(t, "claude"), "-p", "change hello to goodbye", "--output-format", "stream-json", "--verbose", "--max-turns", "10",
		"--model", "claude-sonnet-4-5", "--tools", "Read,Edit,Bash", "--allowedTools", "Read,Edit,Bash", "--permission-mode", "acceptEdits")
	checkEdited(t, s, dir)
}

func TestCodexFollowsTheScript(t *testing.T) {
	s := New()
	defer s.Close()
	s.Agent(script)
	dir := worktree(t)
	home := t.TempDir()
	runCLI(t, dir, []string{"CODEX_HOME=" + home, "WARDEN_MODEL_KEY=dummy"},
		cliBin(t, "codex"), "exec", "--json", "--skip-git-repo-check", "--ephemeral", "--ignore-user-config",
		"--dangerously-bypass-approvals-and-sandbox", "-c", "model_provider=warden",
		"-c", `model_providers.warden={name="warden",base_url="`+s.URL()+`/v1",env_key="WARDEN_MODEL_KEY",wire_api="responses"}`,
		"-m", "gpt-4.1", "change hello to goodbye")
	checkEdited(t, s, dir)
}
