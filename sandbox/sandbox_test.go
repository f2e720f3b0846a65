package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const planted = "wrd-secret-7f3a9c1e5b"

// try runs p (a test command in a plain directory unless it says) and
// returns its result and output.
func try(t *testing.T, p Profile) (Result, string) {
	t.Helper()
	var out bytes.Buffer
	p.Stdout, p.Stderr = &out, &out
	if p.Env == nil {
		p.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	}
	if p.Timeout == 0 {
		p.Timeout = 20 * time.Second
	}
	if p.Kind == "" {
		p.Kind = Test
	}
	r := Run(context.Background(), p)
	if r.Err != nil {
		t.Fatalf("run: %v (output %s)", r.Err, out.String())
	}
	return r, out.String()
}

// A command reads every environment it can find, the key file and .env next
// to it, and lists the data directory: none of it is there.
func TestNoSecretReachable(t *testing.T) {
	t.Setenv("WARDEN_PRIVATE_KEY", planted)
	// Warden's own process, as /proc shows it: started with the secret.
	warden := exec.Command("sleep", "60")
	warden.Env = []string{"WARDEN_LLM_API_KEY=" + planted}
	if err := warden.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { warden.Process.Kill(); warden.Wait() }()
	secrets := t.TempDir()
	key := filepath.Join(secrets, "app.pem")
	os.WriteFile(key, []byte(planted), 0o600)
	os.WriteFile(filepath.Join(secrets, ".env"), []byte("WARDEN_LLM_API_KEY="+planted), 0o600)
	wt := t.TempDir()
	script := `for f in /proc/*/environ /proc/$PPID/environ; do cat "$f" 2>/dev/null | tr '\0' '\n'; done
cat ` + key + ` ` + secrets + `/.env 2>&1; ls ` + secrets + ` 2>&1; ls / ; env; ps 2>/dev/null; ls /proc | grep -c '^[0-9]'`
	r, out := try(t, Profile{Argv: []string{"sh", "-c", script}, Tree: Tree{Dir: wt}})
	if !r.Isolated {
		t.Fatal("ran without isolation")
	}
	for _, s := range []string{planted, base64.StdEncoding.EncodeToString([]byte(planted))} {
		if strings.Contains(out, s) {
			t.Fatalf("secret reachable in the sandbox:\n%s", out)
		}
	}
	if !strings.Contains(out, "No such file") {
		t.Fatalf("the key file's directory should not exist inside:\n%s", out)
	}
	if strings.Contains(out, "\nwork\n") || strings.Contains(out, "\nroot\n") {
		t.Fatalf("host directories visible:\n%s", out)
	}
}

// Only the worktree and the private HOME are writable; the cache only for
// setup.
func TestOnlyWorktreeWritable(t *testing.T) {
	wt, ro, cache := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ro, "cache"), []byte("x"), 0o644)
	script := `echo ok > a.txt && echo ok > "$HOME/h" && echo wt-ok
echo x > /usr/evil 2>/dev/null && echo usr-written
echo x > ` + ro + `/cache 2>/dev/null && echo ro-written
echo x > /etc/passwd 2>/dev/null && echo etc-written
echo x > ` + cache + `/planted 2>/dev/null && echo cache-written
true`
	for _, k := range []Kind{Test, Security, ExecAgent, AgentCLI} {
		_, out := try(t, Profile{Kind: k, Argv: []string{"sh", "-c", script}, Tree: Tree{Dir: wt}, ReadOnly: []string{ro}, Cache: cache})
		if !strings.Contains(out, "wt-ok") || strings.Contains(out, "written") {
			t.Fatalf("%s writes: %s", k, out)
		}
	}
	_, out := try(t, Profile{Kind: Setup, Argv: []string{"sh", "-c", script}, Tree: Tree{Dir: wt}, ReadOnly: []string{ro}, Cache: cache})
	if !strings.Contains(out, "cache-written") || strings.Contains(out, "ro-written") {
		t.Fatalf("setup writes: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "a.txt")); string(b) != "ok\n" {
		t.Fatalf("worktree write lost: %q", b)
	}
}

// No network unless asked: a loopback listener accepts nothing.
func TestNetworkOffUnlessOptedIn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	line := "bash -c 'echo hi > /dev/tcp/127.0.0.1/" + itoa(port) + "' 2>&1; true"
	wt := t.TempDir()
	try(t, Profile{Argv: []string{"sh", "-c", line}, Tree: Tree{Dir: wt}})
	select {
	case <-accepted:
		t.Fatal("a sandboxed command reached a loopback listener with the network off")
	case <-time.After(300 * time.Millisecond):
	}
	// With Egress, loopback is still the sandbox's own: the host's stays
	// out of reach (egress_test.go covers the way out through the proxy).
	try(t, Profile{Argv: []string{"sh", "-c", line}, Tree: Tree{Dir: wt}, Network: Egress})
	select {
	case <-accepted:
		t.Fatal("a sandboxed command with Egress reached the host's loopback")
	case <-time.After(300 * time.Millisecond):
	}
}

// A timeout kills the whole tree, including processes that left the
// command's session and group.
func TestTimeoutKillsWholeTree(t *testing.T) {
	wt := t.TempDir()
	line := `(setsid sh -c 'sleep 2; touch ` + wt + `/escaped' &) ; (sleep 2; touch ` + wt + `/child) & sleep 30`
	begin := time.Now()
	r, _ := try(t, Profile{Argv: []string{"sh", "-c", line}, Tree: Tree{Dir: wt}, Timeout: 300 * time.Millisecond})
	// Not a window for the machine to keep: only "it did not wait out the
	// command's own 30 s".
	if !r.TimedOut || time.Since(begin) >= 30*time.Second {
		t.Fatalf("timed out %v after %s", r.TimedOut, time.Since(begin))
	}
	time.Sleep(2500 * time.Millisecond)
	for _, f := range []string{"escaped", "child"} {
		if _, err := os.Stat(filepath.Join(wt, f)); err == nil {
			t.Fatalf("a process of the timed-out command lived on and wrote %s", f)
		}
	}
}

func TestCancelKillsWholeTree(t *testing.T) {
	wt := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	begin := time.Now()
	r := Run(ctx, Profile{Kind: Test, Argv: []string{"sh", "-c", "(sleep 30 &) ; sleep 30"}, Tree: Tree{Dir: wt}, Env: []string{"PATH=/usr/bin:/bin"}})
	if !r.Canceled || time.Since(begin) > 4*time.Second {
		t.Fatalf("canceled %v after %s", r.Canceled, time.Since(begin))
	}
}

// Without a working bubblewrap nothing runs, and the error names what to
// install; the explicit opt-out runs the command bare.
func TestUnavailableRefusesUnlessOptedOut(t *testing.T) {
	defer resetProbe("bwrap")
	resetProbe("bwrap-not-installed-here")
	wt := t.TempDir()
	r := Run(context.Background(), Profile{Kind: Test, Argv: []string{"true"}, Tree: Tree{Dir: wt}, Env: []string{"PATH=/usr/bin:/bin"}})
	if !errors.Is(r.Err, ErrUnavailable) || !strings.Contains(r.Err.Error(), "install the bubblewrap package") {
		t.Fatalf("err = %v", r.Err)
	}
	t.Setenv(UnsafeEnv, "1")
	r, out := try(t, Profile{Argv: []string{"sh", "-c", "echo bare"}, Tree: Tree{Dir: wt}})
	if r.Isolated || !strings.Contains(out, "bare") || !strings.Contains(Describe(), "NONE") {
		t.Fatalf("opt-out: isolated=%v out=%q describe=%q", r.Isolated, out, Describe())
	}
}

func resetProbe(bin string) {
	probeOnce = syncOnce()
	bwrapBin = bin
	probeErr = nil
}
