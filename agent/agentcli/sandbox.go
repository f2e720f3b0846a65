package agentcli

import (
	"net"
	"path/filepath"
)

// freePort is a loopback port nobody listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
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
