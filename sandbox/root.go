package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// imageDirs are the directories an image provides instead of the worker's.
var imageDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// netFiles are the worker's name-resolution files, laid over the image's
// when it has them, so a command with network resolves as the worker does.
var netFiles = []string{"/etc/resolv.conf", "/etc/hosts"}

// imageRootArgs binds the image's system directories read-only (recreating
// the links of merged-/usr images as links), then the image's PATH
// directories that lie elsewhere (a golang image's /go/bin, say). Nothing
// of the worker's system is visible but its resolver files.
func imageRootArgs(root string, env []string) []string {
	var a []string
	for _, d := range imageDirs {
		src := filepath.Join(root, d)
		fi, err := os.Lstat(src)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(src); err == nil {
				a = append(a, "--symlink", target, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", src, d)
		}
	}
	for _, f := range netFiles {
		if fi, err := os.Lstat(filepath.Join(root, f)); err == nil && fi.Mode().IsRegular() {
			a = append(a, "--ro-bind-try", f, f)
		}
	}
	for _, d := range imagePathDirs(root, env) {
		a = append(a, "--ro-bind", filepath.Join(root, d), d)
	}
	return a
}

// imagePathDirs are env's PATH directories outside the image directories
// and the sandbox's own mounts, that are real directories of the image
// (checked without following links out of it).
func imagePathDirs(root string, env []string) []string {
	var out []string
	for _, d := range pathEntries(env) {
		if d == "/" || underAny(d, []string{"/usr/", "/bin/", "/sbin/", "/lib", "/etc/", "/opt/", "/proc/", "/dev/", "/tmp/", "/run/", "/sys/"}) {
			continue
		}
		if realDirIn(root, d) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// realDirIn reports whether d is a directory of the image reached through
// directories only: a link anywhere on the way could point at the worker's
// own files, which bubblewrap would then bind.
func realDirIn(root, d string) bool {
	cur := root
	for _, part := range strings.Split(strings.Trim(d, "/"), "/") {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
