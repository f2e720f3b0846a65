package agentcli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// socketPath is where the proxy's socket appears inside the sandbox, and
// forwardPort where the forwarder listens on the sandbox's own loopback.
const (
	socketPath  = "/run/warden/model.sock"
	forwardPort = 8377
)

// roots are read-only inside the sandbox: the system, not the host's data.
// /etc is bound piecemeal: a host's /etc may hold credentials.
var roots = []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/usr/local/go",
	"/etc/alternatives", "/etc/ssl", "/etc/ca-certificates", "/etc/passwd", "/etc/group",
	"/etc/nsswitch.conf", "/etc/hosts", "/etc/ld.so.cache", "/etc/localtime"}

// sandboxArgs is the bubblewrap command line around argv: every namespace
// unshared (no network but its own loopback, its own PIDs), dies with
// Warden, only dir and home writable, the CLI's install and the proxy
// socket bound in, the environment exactly env.
func sandboxArgs(bwrap, cliRoot, dir, home, sock string, env, argv []string) []string {
	a := []string{bwrap, "--unshare-all", "--die-with-parent", "--new-session",
		"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run"}
	for _, r := range roots {
		a = append(a, "--ro-bind-try", r, r)
	}
	a = append(a, "--ro-bind", cliRoot, cliRoot, "--bind", dir, dir, "--bind", home, home,
		"--bind", sock, socketPath, "--chdir", dir, "--clearenv")
	for _, kv := range env {
		k, v, _ := cut(kv)
		a = append(a, "--setenv", k, v)
	}
	// The forwarder listens before the CLI starts, so its first call finds it.
	fwd := "socat TCP-LISTEN:" + strconv.Itoa(forwardPort) + ",bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:" + socketPath + " 2>/dev/null &\n" +
		"i=0; until socat -u OPEN:/dev/null TCP:127.0.0.1:" + strconv.Itoa(forwardPort) + " 2>/dev/null; do i=$((i+1)); [ $i -gt 200 ] && break; sleep 0.01; done\n" +
		`exec "$@"`
	return append(append(a, "--", "/bin/sh", "-c", fwd, "sh"), argv...)
}

func cut(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// tools finds bwrap and socat, which the sandbox needs; a clear error names
// what to install.
func tools() (string, error) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fmt.Errorf("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
	}
	if _, err := exec.LookPath("socat"); err != nil {
		return "", fmt.Errorf("socat is not installed (it forwards the sandbox's loopback to the metering proxy): apt-get install socat")
	}
	return bwrap, nil
}

// installRoot is the directory tree a CLI's executable lives in (its npm
// package root, through the node_modules/.bin symlink), bound read-only.
func installRoot(bin string) (string, error) {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(real)
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if filepath.Base(d) == "node_modules" {
			return d, nil
		}
	}
	return dir, nil
}

var _ = os.Getenv
