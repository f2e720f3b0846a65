package imagetest

import (
	"archive/tar"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// StaticClient builds `fetch URL`, a static HTTP client that honours
// $http_proxy, for images that hold nothing but a shell: busybox-static's
// own wget is linked against a static glibc whose resolver crashes without
// the image's NSS files. The returned text is the executable's bytes.
func StaticClient(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module fetch\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(`package main

import (
	"fmt"
	"net/http"
	"os"
)

func main() {
	resp, err := http.Get(os.Args[1])
	if err != nil {
		fmt.Println("fetch:", err)
		os.Exit(1)
	}
	fmt.Println(resp.Status)
}
`), 0o644)
	cmd := exec.Command("go", "build", "-o", "fetch", ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the static client: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "fetch"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ShellOnly pushes an image holding nothing but a static busybox shell and
// StaticClient as `fetch` to a loopback registry; it returns the reference
// and the registry (for WARDEN_IMAGE_REGISTRIES).
func ShellOnly(t testing.TB) (ref, registry string) {
	t.Helper()
	links := Layer(t,
		Entry{Header: tar.Header{Name: "usr/bin/sh", Typeflag: tar.TypeSymlink, Linkname: "busybox"}},
		Entry{Header: tar.Header{Name: "usr/bin/fetch", Mode: 0o755}, Body: StaticClient(t)})
	img := Image(t, []string{"PATH=/usr/bin:/bin"}, HostLayer(t, []string{"busybox"}, nil, nil), links)
	registry = Registry(t)
	return Push(t, registry+"/shell-only:1", img), registry
}
