package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// systemDirs are the host directories every command sees, read-only: the
// programs and libraries, never the root file system as a whole (which
// holds the key file, .env, the data directory and every mirror).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcFiles are the pieces of /etc that programs need to run, resolve names
// (when the network is on) and verify TLS (certificates, never /etc/ssl/private);
// the rest of /etc stays out.
var etcFiles = []string{
	"passwd", "group", "hosts", "resolv.conf", "nsswitch.conf", "host.conf", "gai.conf",
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
	"ssl/certs", "ca-certificates", "ca-certificates.conf", "pki/tls/certs", "pki/ca-trust/extracted", "alternatives",
	"protocols", "services", "mime.types", "os-release", "debian_version", "profile", "shells",
}

// toolRoots are where PATH entries may come from: a toolchain installed
// under /opt or /nix is visible, one under a home directory is not (a home
// holds credentials).
var toolRoots = []string{"/usr/", "/opt/", "/nix/", "/snap/"}

// limiterPath is where the limiter (limits.go) is bound inside.
const limiterPath = "/run/warden/limits"

// runSize is the size of the sandbox's /run.
const runSize = 16 << 20

// bwrapArgv is the bubblewrap command line for s: inner (the limiter and
// the command) runs in it, with exe bound at limiterPath.
func bwrapArgv(s spec, exe string, inner []string) []string {
	a := []string{bwrapPath(), "--unshare-all", "--cap-drop", "ALL", "--die-with-parent", "--new-session"}
	a = append(a, s.bwrap...)
	if s.root != "" {
		a = append(a, imageRootArgs(s.root, s.env)...)
	} else {
		for _, d := range systemDirs {
			a = append(a, systemDir(d)...)
		}
		for _, f := range etcFiles {
			a = append(a, "--ro-bind-try", "/etc/"+f, "/etc/"+f)
		}
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev")
	a = append(a, tmpfs("/tmp", s.tmpSize)...)
	a = append(a, tmpfs("/run", runSize)...)
	if exe != "" {
		a = append(a, "--ro-bind", exe, limiterPath)
	}
	if s.root == "" { // an image's PATH directories are its own (imageRootArgs)
		for _, d := range pathDirs(s.env) {
			a = append(a, "--ro-bind-try", d, d)
		}
	}
	for _, d := range s.readOnly {
		a = append(a, "--ro-bind", d, d)
	}
	a = append(a, "--bind", s.home, s.home)
	for _, d := range s.writable {
		a = append(a, "--bind", d, d)
	}
	for _, p := range s.sockets {
		a = append(a, "--bind", p, p)
	}
	// What must stay read-only inside a writable tree (a worktree's .git
	// file) and read-only binds that fall inside a writable one are
	// remounted read-only last, so they win.
	for _, d := range s.protect {
		a = append(a, "--ro-bind", d, d)
	}
	for _, d := range s.readOnly {
		if inside(d, s.writable) {
			a = append(a, "--ro-bind", d, d)
		}
	}
	if s.dir != "" {
		a = append(a, "--chdir", s.dir)
	}
	return append(append(a, "--"), inner...)
}

// tmpfs mounts a tmpfs of size bytes at dir (unbounded where this
// bubblewrap has no --size).
func tmpfs(dir string, size int64) []string {
	if size > 0 && sizedTmpfs {
		return []string{"--size", strconv.FormatInt(size, 10), "--tmpfs", dir}
	}
	return []string{"--tmpfs", dir}
}

// systemDir binds d read-only, or recreates it as the symlink it is on
// merged-/usr systems.
func systemDir(d string) []string {
	fi, err := os.Lstat(d)
	if err != nil {
		return nil
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if target, err := os.Readlink(d); err == nil {
			return []string{"--symlink", target, d}
		}
		return nil
	}
	return []string{"--ro-bind", d, d}
}

// pathDirs are the directories of env's PATH that lie under a toolRoot and
// outside the system directories already bound.
func pathDirs(env []string) []string {
	var out []string
	for _, d := range pathEntries(env) {
		if strings.HasPrefix(d, "/usr/") || !underAny(d, toolRoots) {
			continue
		}
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// pathEntries are env's PATH directories, cleaned, the absolute ones only.
func pathEntries(env []string) []string {
	var out []string
	for _, e := range env {
		v, ok := strings.CutPrefix(e, "PATH=")
		if !ok {
			continue
		}
		for _, d := range filepath.SplitList(v) {
			if d = filepath.Clean(d); filepath.IsAbs(d) {
				out = append(out, d)
			}
		}
	}
	return out
}

func underAny(d string, roots []string) bool {
	for _, r := range roots {
		if strings.HasPrefix(d+"/", r) {
			return true
		}
	}
	return false
}

func inside(p string, dirs []string) bool {
	for _, d := range dirs {
		if p != d && strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}
