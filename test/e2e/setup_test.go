package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/harness"
)

// goProxy serves one module, example.com/dep v1.0.0, the way a Go module
// proxy does, and counts the requests it answers. It stands on the test's
// "internet" (harness.PublicServer): a sandbox with network reaches only
// public addresses, through Warden's egress proxy, never loopback.
func goProxy(t *testing.T) (*httptest.Server, *atomic.Int32) {
	const mod = "module example.com/dep\n\ngo 1.22\n"
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range map[string]string{"go.mod": mod, "dep.go": "package dep\n\n// Five is 5.\nfunc Five() int { return 5 }\n"} {
		f, _ := zw.Create("example.com/dep@v1.0.0/" + name)
		f.Write([]byte(body))
	}
	zw.Close()
	files := map[string][]byte{
		"/example.com/dep/@v/list":        []byte("v1.0.0\n"),
		"/example.com/dep/@v/v1.0.0.info": []byte(`{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`),
		"/example.com/dep/@v/v1.0.0.mod":  []byte(mod),
		"/example.com/dep/@v/v1.0.0.zip":  zb.Bytes(),
	}
	var n atomic.Int32
	srv := harness.PublicServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	return srv, &n
}

// goSum asks the Go toolchain (against the loopback proxy, into a scratch
// cache) for the go.sum lines of example.com/dep.
func goSum(t *testing.T, proxy string) string {
	cmd := exec.Command("go", "mod", "download", "-json", "example.com/dep@v1.0.0")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOPROXY="+proxy, "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE="+t.TempDir(), "GO111MODULE=on")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download: %v", err)
	}
	var d struct{ Sum, GoModSum string }
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	return "example.com/dep v1.0.0 " + d.Sum + "\nexample.com/dep v1.0.0/go.mod " + d.GoModSum + "\n"
}

// A repository whose tests need a real dependency: `setup:` downloads it on
// the base commit with the network on; the test command then runs offline
// from the repository's cache, which it cannot write (issue 17, build 3).
func TestSetupFillsTheCacheTestsRunOffline(t *testing.T) {
	proxy, hits := goProxy(t)
	files := calcRepo()
	files["go.mod"] = "module example.com/calc\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n"
	files["go.sum"] = goSum(t, proxy.URL)
	files["calc/calc_test.go"] = "package calc\n\nimport (\n\t\"testing\"\n\n\t\"example.com/dep\"\n)\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != dep.Five() {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n"
	// A shell list is judged by its exit status and the base is red (the
	// bug's test fails there): with a baseline that blocks the attempt
	// (issue #32), so this test of the cache turns the baseline off.
	files[".github/warden.yml"] = "setup: go mod download\ntest: touch \"$GOMODCACHE/poisoned\" 2>/dev/null; go test ./...\nmax_fix_attempts: 1\nbaseline: false\n"
	w := newWorld(t, files, func(env map[string]string) {
		env["GOPROXY"], env["GOSUMDB"] = proxy.URL, "off"
	})
	w.Model.Script(happyScript)
	w.Label(20, "Add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(20, 150*time.Second)
	if rec.Outcome != "completed" {
		t.Fatalf("record = %+v\n%s\n%s", rec, w.CommentWith(20, "<!-- warden:outcome"), tail(w.Bot.Logs(), 3000))
	}
	if hits.Load() == 0 {
		t.Fatal("the setup command never reached the module proxy")
	}
	// It went through the egress proxy, and the record says so.
	var logged bool
	for _, e := range rec.Egress {
		if e.Stage == "Setup" && e.Verdict == "allowed" && e.BytesIn > 0 && strings.HasPrefix(proxy.URL, "http://"+e.Host+":") {
			logged = true
		}
	}
	if !logged {
		t.Errorf("the outcome record does not show the setup command's connection: %+v", rec.Egress)
	}
	cache := filepath.Join(w.Env["WARDEN_DATA_DIR"], "caches", owner, name, "gomod")
	if _, err := os.Stat(filepath.Join(cache, "cache", "download", "example.com", "dep")); err != nil {
		t.Fatalf("the dependency is not in the repository's cache: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "poisoned")); err == nil {
		t.Fatal("the test command wrote into the cache")
	}
	if !strings.Contains(w.Bot.Logs(), `"stage":"Setup"`) && !strings.Contains(w.Bot.Logs(), "stage=Setup") {
		t.Errorf("no log line for the setup command")
	}
}
