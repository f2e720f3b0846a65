package redteam

// Threat-model rows "Repository code" and "Agent processes": one sandbox
// profile for every untrusted process (issue #26, build 1). The same hostile
// probes run through each kind — setup, test, security, the exec agent,
// Claude Code and Codex — each through the code that starts it in Warden.

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/sandbox"
)

const sandboxPlanted = "wrd-redteam-secret-91be"

// sandboxProbes is the attacker's script: each line tries one thing and
// reports ESCAPE when it worked. %NAME% placeholders are filled in.
const sandboxProbes = `r=probe-report.txt; : > $r
try() { name=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "ESCAPE $name" >> $r; else echo "held $name" >> $r; fi; }
try write-dotgit sh -c 'printf "gitdir: /proc\n" > .git'
try remove-dotgit sh -c 'rm -f .git && [ ! -e .git ]'
try write-gitdir sh -c 'echo x >> %GITDIR%/HEAD'
try write-mirror-config sh -c 'echo "[core]" >> %MIRROR%/config'
try write-mirror-hooks sh -c 'echo "#!/bin/sh" > %MIRROR%/hooks/post-checkout'
try write-mirror-objects sh -c 'echo %MIRROR%/objects > %MIRROR%/objects/info/alternates'
try write-mirror-exclude sh -c 'echo "*" >> %MIRROR%/info/exclude'
try read-key-file sh -c 'grep -q ` + sandboxPlanted + ` %SECRETS%/app.pem'
try read-dotenv sh -c 'grep -q ` + sandboxPlanted + ` %SECRETS%/.env'
try read-data-dir sh -c '[ -d %DATA%/home ] || [ -d %DATA%/parked ]'
try read-other-mirror sh -c 'ls %OTHER%/objects'
touch %DATA%/planted %DATA%/mirrors/planted /usr/planted /etc/planted 2>/dev/null # the host checks
try see-host-process sh -c 'cat /proc/*/cmdline | tr "\0" " " | grep -q "[%MARKER0%]%MARKERREST%"'
try read-host-environ sh -c 'cat /proc/*/environ | tr "\0" "\n" | grep -q ` + sandboxPlanted + `'
try own-environ sh -c 'env | grep -q ` + sandboxPlanted + `'
try loopback sh -c '[ %NET% = none ] && socat -u OPEN:/dev/null TCP:127.0.0.1:%PORT%,connect-timeout=2'
echo done >> $r
`

type sandboxRig struct {
	m       *workspace.Manager
	w       *workspace.Worktree
	secrets string
	marker  string
	port    int
	other   string
}

func newSandboxRig(t *testing.T) *sandboxRig {
	t.Setenv("WARDEN_PRIVATE_KEY", sandboxPlanted) // as Warden's own environment holds it
	m, cloneURL := gitManager(t, 2)
	r := &sandboxRig{m: m, w: gitPrepare(t, m, cloneURL, "probe")}
	// Another repository's mirror on the same worker.
	_, otherURL := gitManager(t, 0)
	o := gitPrepareRepo(t, m, otherURL, "acme/other", "other")
	r.other = filepath.Dir(filepath.Dir(o.Tree().GitDir))
	r.secrets, r.marker = gitHostSecrets(t)
	if err := os.WriteFile(filepath.Join(r.secrets, ".env"), []byte("WARDEN_LLM_API_KEY="+sandboxPlanted+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Warden's process as /proc would show it: started with the secret.
	warden := exec.Command("sleep", "120")
	warden.Env = []string{"WARDEN_LLM_API_KEY=" + sandboxPlanted}
	if err := warden.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = warden.Process.Kill(); _ = warden.Wait() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	r.port = ln.Addr().(*net.TCPAddr).Port
	return r
}

// script writes the probes, filled in, into the worktree as probe.sh.
func (r *sandboxRig) script(t *testing.T, network sandbox.Network) {
	tr := r.w.Tree()
	s := strings.NewReplacer("%GITDIR%", tr.GitDir, "%MIRROR%", tr.Common, "%SECRETS%", r.secrets, "%DATA%", r.m.Dir(),
		"%OTHER%", r.other, "%MARKER0%", r.marker[:1], "%MARKERREST%", r.marker[1:], "%NET%", network.String(), "%PORT%", strconv.Itoa(r.port)).Replace(sandboxProbes)
	if err := os.WriteFile(filepath.Join(r.w.Dir, "probe.sh"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// report is what the probes found, failing the test on any escape.
func (r *sandboxRig) report(t *testing.T, said string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.w.Dir, "probe-report.txt"))
	if err != nil || !strings.Contains(string(b), "done") {
		t.Fatalf("the probes did not run to the end (%v): %q\n%s", err, b, said)
	}
	if strings.Contains(string(b), "ESCAPE") {
		t.Fatalf("the sandbox let these through:\n%s", b)
	}
	for _, p := range []string{filepath.Join(r.m.Dir(), "planted"), filepath.Join(r.m.Dir(), "mirrors", "planted"), "/usr/planted", "/etc/planted"} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("a sandboxed process wrote %s on the host", p)
		}
	}
	if err := r.w.Tree().Verify(); err != nil {
		t.Fatalf("the tree changed: %v", err)
	}
}

// The same probes through every kind of untrusted process.
func TestEveryUntrustedProcessIsHeld(t *testing.T) {
	kinds := []struct {
		name    string
		network sandbox.Network
		run     func(t *testing.T, r *sandboxRig) string
	}{
		{"setup", sandbox.Egress, func(t *testing.T, r *sandboxRig) string {
			return workspace.Run(context.Background(), workspace.Command{Tree: r.w.Tree(), Kind: sandbox.Setup, Line: "sh probe.sh",
				Cache: r.m.CacheDir("acme/calc"), Timeout: time.Minute}).Output
		}},
		{"test", sandbox.NoNetwork, func(t *testing.T, r *sandboxRig) string {
			return workspace.Run(context.Background(), workspace.Command{Tree: r.w.Tree(), Kind: sandbox.Test, Line: "sh probe.sh",
				Cache: r.m.CacheDir("acme/calc"), Timeout: time.Minute}).Output
		}},
		{"security", sandbox.NoNetwork, func(t *testing.T, r *sandboxRig) string {
			return workspace.Run(context.Background(), workspace.Command{Tree: r.w.Tree(), Kind: sandbox.Security, Line: "sh probe.sh",
				Cache: r.m.CacheDir("acme/calc"), Timeout: time.Minute}).Output
		}},
		{"exec agent", sandbox.Egress, func(t *testing.T, r *sandboxRig) string {
			ex := agent.NewExec("sh probe.sh")
			ex.Network = sandbox.Egress // as sessions configures it
			out, err := ex.Run(context.Background(), "implement", r.w.Tree(), "")
			if err != nil {
				return out + err.Error()
			}
			return out
		}},
		{"claude-code", sandbox.NoNetwork, func(t *testing.T, r *sandboxRig) string {
			return gitCLI(t, "claude-code", r.w.Tree(), "sh probe.sh")
		}},
		{"codex", sandbox.NoNetwork, func(t *testing.T, r *sandboxRig) string {
			return gitCLI(t, "codex", r.w.Tree(), "sh probe.sh")
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			r := newSandboxRig(t)
			r.script(t, k.network)
			said := k.run(t, r)
			r.report(t, said)
		})
	}
}
