package fakegithub

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/test/gitfixture"
)

// Clones and pushes work over the git endpoint, and each request's
// credential is recorded.
func TestGitEndpointClonesAndPushes(t *testing.T) {
	s := New()
	defer s.Close()
	bare, cloneURL := gitfixture.NewRepo(t, map[string]string{"a.txt": "a\n"})
	s.AddRepo("acme", "calc", cloneURL, "main")
	dir := filepath.Join(t.TempDir(), "c")
	url := s.GitURL() + "acme/calc.git"
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "http.extraHeader=Authorization: Basic dG9rZW4="}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("clone", "-q", url, dir)
	run("-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
	run("-C", dir, "push", "-q", "origin", "HEAD:refs/heads/pushed")
	if !strings.Contains(strings.Join(gitfixture.Branches(t, bare), " "), "pushed") {
		t.Fatal("push did not reach the bare repository")
	}
	reqs := s.GitRequests()
	if len(reqs) == 0 || reqs[0].Authorization != "Basic dG9rZW4=" {
		t.Fatalf("requests %+v", reqs)
	}
	if n := len(s.Calls()); n != 0 {
		t.Fatalf("git requests counted as %d API calls", n)
	}
}
