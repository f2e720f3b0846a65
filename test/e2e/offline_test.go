package e2e

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// offlinePyproject is a pytest project whose tests import the code from
// the tree (pythonpath): nothing of its own needs installing.
const offlinePyproject = "[project]\nname = \"calc\"\nversion = \"0.1\"\ndependencies = []\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n"

// offlineTest checks, from inside the sandbox, that pytest is the system's
// (Debian's python3-pytest, seen through the venv's system site packages).
const offlineTest = "import pytest\n\nfrom calc import add\n\n\ndef test_add():\n" +
	"    assert pytest.__file__.startswith(\"/usr/lib/python3/dist-packages/\"), pytest.__file__\n" +
	"    assert add(2, 3) == 5\n"

// offlineEnv is a worker with no way out but what the operator named: the
// egress allow-list admits no real host, and PATH is the system's (the
// sandbox sees /usr read-only; this machine's pyenv shims are not there).
func offlineEnv(env map[string]string) {
	env["WARDEN_EGRESS_ALLOW"] = "nothing.invalid"
	env["PATH"] = "/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
}

func needSystemPytest(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/lib/python3/dist-packages/pytest/__init__.py"); err != nil {
		t.Fatalf("this test needs Debian's python3-pytest (scripts/test-deps.sh installs it): %v", err)
	}
}

// A pyproject + pytest repository on a worker that has pytest, with no
// package index reachable: the inferred setup installs nothing, the tests
// run, and the PR opens.
func TestPythonPytestWithoutInternet(t *testing.T) {
	needSystemPytest(t)
	files := map[string]string{
		"pyproject.toml":     offlinePyproject,
		"calc.py":            "def add(a, b):\n    return a - b\n",
		"tests/test_calc.py": offlineTest,
	}
	w := newWorld(t, files, offlineEnv)
	w.Model.Script(langScript("calc.py", "    return a - b", "    return a + b"))
	w.Label(40, "add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(40, 240*time.Second)
	if rec.Outcome != "completed" || rec.PR == 0 {
		t.Fatalf("record = %+v\n%s\n%s", rec, w.CommentWith(40, "<!-- warden:outcome"), tail(w.Bot.Logs(), 6000))
	}
	status := w.CommentWith(40, "<!-- warden:status -->")
	if !strings.Contains(status, "python3 -m venv --system-site-packages") || strings.Contains(status, "pip install -e") {
		t.Errorf("the inferred setup is not the offline one:\n%s", status)
	}
}

// With WARDEN_PIP_INDEX_URL set to a loopback mirror the operator named,
// the setup installs the repository's test requirement from it: the mirror
// sees the index page and the wheel asked for, and the PR opens.
func TestPythonSetupUsesTheOperatorsMirror(t *testing.T) {
	needSystemPytest(t)
	mirror := servePyIndex(t, "tinydep", "1.0")
	files := map[string]string{
		"pyproject.toml":       offlinePyproject,
		"requirements-dev.txt": "tinydep==1.0\n",
		"calc.py":              "def add(a, b):\n    return a - b\n",
		"tests/test_calc.py":   "import tinydep\n\n" + offlineTest + "    assert tinydep.VERSION == \"1.0\"\n",
	}
	w := newWorld(t, files, offlineEnv, func(env map[string]string) { env["WARDEN_PIP_INDEX_URL"] = mirror.url + "/simple/" })
	w.Model.Script(langScript("calc.py", "    return a - b", "    return a + b"))
	w.Label(41, "add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(41, 240*time.Second)
	if rec.Outcome != "completed" || rec.PR == 0 {
		t.Fatalf("record = %+v\n%s\n%s", rec, w.CommentWith(41, "<!-- warden:outcome"), tail(w.Bot.Logs(), 6000))
	}
	got := mirror.seen()
	if !contains(got, "GET /simple/tinydep/") || !contains(got, "GET /files/tinydep-1.0-py3-none-any.whl") {
		t.Fatalf("the mirror saw %q: the setup did not use it", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pyIndex is a PEP 503 simple index on a loopback address other than
// 127.0.0.1 (which the sandbox's own loopback answers), serving one wheel.
type pyIndex struct {
	url  string
	mu   sync.Mutex
	reqs []string
}

func (p *pyIndex) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.reqs...)
}

func servePyIndex(t *testing.T, name, version string) *pyIndex {
	t.Helper()
	whl := name + "-" + version + "-py3-none-any.whl"
	body := tinyWheel(t, name, version)
	sum := sha256.Sum256(body)
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.2: %v", err)
	}
	p := &pyIndex{url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.reqs = append(p.reqs, r.Method+" "+r.URL.Path)
		p.mu.Unlock()
		switch r.URL.Path {
		case "/simple/" + name + "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<!DOCTYPE html><html><body><a href=\"/files/%s#sha256=%s\">%s</a></body></html>\n", whl, hex.EncodeToString(sum[:]), whl)
		case "/files/" + whl:
			w.Write(body)
		default:
			http.NotFound(w, r)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

// tinyWheel is a pure-Python wheel holding one module that names its version.
func tinyWheel(t *testing.T, name, version string) []byte {
	t.Helper()
	info := name + "-" + version + ".dist-info/"
	files := [][2]string{
		{name + "/__init__.py", "VERSION = \"" + version + "\"\n"},
		{info + "METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n"},
		{info + "WHEEL", "Wheel-Version: 1.0\nGenerator: warden-e2e\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	var record strings.Builder
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		fw, err := zw.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(f[1]))
		sum := sha256.Sum256([]byte(f[1]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f[0], strings.TrimRight(b64url(sum[:]), "="), len(f[1]))
	}
	record.WriteString(info + "RECORD,,\n")
	fw, err := zw.Create(info + "RECORD")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte(record.String()))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func b64url(b []byte) string { return base64.URLEncoding.EncodeToString(b) }

// Without a mirror, a setup that needs the index fails saying, in one
// sentence, that the network was refused and which setting to set.
func TestPythonSetupWithoutIndexNamesTheSetting(t *testing.T) {
	needSystemPytest(t)
	files := map[string]string{
		"pyproject.toml":       offlinePyproject,
		"requirements-dev.txt": "tinydep==1.0\n",
		"calc.py":              "def add(a, b):\n    return a - b\n",
		"tests/test_calc.py":   offlineTest,
	}
	w := newWorld(t, files, offlineEnv)
	w.Model.Script(langScript("calc.py", "    return a - b", "    return a + b"))
	w.Label(42, "add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(42, 240*time.Second)
	if rec.Outcome == "completed" || !strings.Contains(rec.Summary, "The setup command failed for want of the network: it could not reach") ||
		!strings.Contains(rec.Summary, "set WARDEN_PIP_INDEX_URL to a package mirror the workers can reach.") {
		t.Fatalf("record = %+v\n%s", rec, tail(w.Bot.Logs(), 4000))
	}
}
