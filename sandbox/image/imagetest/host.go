package imagetest

import (
	"archive/tar"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// hostFile is a file of the worker copied into a test image: src on the
// host, dst its path in the image (relative, links of merged /usr resolved).
type hostFile struct{ src, dst string }

var lddPath = regexp.MustCompile(`(/\S+) \(0x`)

// hostFiles lists progs (found on PATH), the shared libraries ldd says they
// load, and every file under trees (host directories, copied as they are),
// skipping paths that contain any of skip.
func hostFiles(t testing.TB, progs, trees, skip []string) []hostFile {
	t.Helper()
	seen := map[string]bool{}
	var out []hostFile
	var add func(p string)
	add = func(p string) {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			t.Fatalf("image from host: %v", err)
		}
		dst := strings.TrimPrefix(filepath.Join(dir, filepath.Base(p)), "/")
		if seen[dst] {
			return
		}
		seen[dst] = true
		out = append(out, hostFile{src: p, dst: dst})
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			add(real) // sh is a link to dash: the image needs both
		}
	}
	for _, prog := range progs {
		p, err := exec.LookPath(prog)
		if err != nil {
			t.Fatalf("image from host: %s is not installed here (scripts/test-deps.sh installs it): %v", prog, err)
		}
		add(p)
		ldd, _ := exec.Command("ldd", p).Output() // a static binary has none
		for _, m := range lddPath.FindAllStringSubmatch(string(ldd), -1) {
			add(m[1])
		}
		for _, m := range regexp.MustCompile(`=> (/\S+)`).FindAllStringSubmatch(string(ldd), -1) {
			add(m[1])
		}
	}
	for _, tree := range trees {
		err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			for _, s := range skip {
				if strings.Contains(p, s) {
					if d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
			}
			if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
				add(p)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("image from host: %v", err)
		}
	}
	return out
}

// mergedUsr are the top-level links of a merged-/usr system.
var mergedUsr = [][2]string{{"bin", "usr/bin"}, {"sbin", "usr/sbin"}, {"lib", "usr/lib"}, {"lib64", "usr/lib64"}}

// HostLayer is one layer holding the host's progs with their libraries and
// the trees, the merged-/usr links, and /etc/passwd: enough of a root file
// system for those programs to run, assembled from this machine's own files.
func HostLayer(t testing.TB, progs, trees, skip []string) v1.Layer {
	t.Helper()
	entries := []Entry{{Header: tar.Header{Name: "etc/", Typeflag: tar.TypeDir}}, {Header: tar.Header{Name: "etc/passwd"}, Body: "root:x:0:0:root:/root:/bin/sh\n"}}
	for _, l := range mergedUsr {
		entries = append(entries, Entry{Header: tar.Header{Name: l[0], Typeflag: tar.TypeSymlink, Linkname: l[1]}})
	}
	for _, f := range hostFiles(t, progs, trees, skip) { // parents are created as needed
		fi, err := os.Lstat(f.src)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(f.src)
			entries = append(entries, Entry{Header: tar.Header{Name: f.dst, Typeflag: tar.TypeSymlink, Linkname: target}})
			continue
		}
		b, err := os.ReadFile(f.src)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, Entry{Header: tar.Header{Name: f.dst, Mode: int64(fi.Mode().Perm())}, Body: string(b)})
	}
	return Layer(t, entries...)
}

// HostImage is an image of HostLayer; without a PATH in env, PATH is set
// as a Debian image sets it.
func HostImage(t testing.TB, env []string, progs, trees, skip []string) v1.Image {
	t.Helper()
	if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "PATH=") }) {
		env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, env...)
	}
	return Image(t, env, HostLayer(t, progs, trees, skip))
}
