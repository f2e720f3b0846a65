package agentcli

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
)

// forwarder wraps argv: inside the sandbox's own network namespace, socat
// listens on loopback port and hands each connection to the metering
// proxy's Unix socket (bound in), then the CLI starts. The port is free on
// the host too, for the unsandboxed opt-out.
func forwarder(sock string, port int, argv []string) []string {
	p := strconv.Itoa(port)
	script := "socat TCP-LISTEN:" + p + ",bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:" + sock + " 2>/dev/null &\n" +
		// It listens before the CLI starts, so the CLI's first call finds it.
		"i=0; until socat -u OPEN:/dev/null TCP:127.0.0.1:" + p + " 2>/dev/null; do i=$((i+1)); [ $i -gt 300 ] && break; sleep 0.01; done\n" +
		`exec "$@"`
	return append([]string{"/bin/sh", "-c", script, "sh"}, argv...)
}

// freePort is a loopback port nobody listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// needSocat: the forwarder is socat; a clear error names the package.
func needSocat() error {
	if _, err := exec.LookPath("socat"); err != nil {
		return fmt.Errorf("socat is not installed (it forwards the sandbox's loopback to the metering proxy): apt-get install socat")
	}
	return nil
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
