// Package scripts holds the tests of the shell scripts behind `make run`
// and `make test`.
package scripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// depsRun runs test-deps.sh on a PATH holding only stubs: `id` answers uid,
// the commands in have exist, and apt-get (when withApt) records its calls
// and "installs" a package by creating its command.
type depsRun struct {
	uid      string
	have     []string
	withApt  bool
	aptFails string // package whose install fails
	hook     bool   // put an agent-clis.sh next to the script
}

type depsResult struct {
	code           int
	stdout, stderr string
	apt            []string // apt-get calls, one per line
	hookRan        bool
}

func (r depsRun) run(t *testing.T) depsResult {
	t.Helper()
	dir := t.TempDir()
	bin, scripts := filepath.Join(dir, "bin"), filepath.Join(dir, "scripts")
	for _, d := range []string{bin, scripts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script, err := os.ReadFile("test-deps.sh")
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, body string) {
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(scripts, "test-deps.sh"), string(script))
	write(filepath.Join(bin, "id"), "#!/bin/bash\necho "+r.uid+"\n")
	for _, c := range r.have {
		write(filepath.Join(bin, c), "#!/bin/bash\n")
	}
	calls := filepath.Join(dir, "apt-calls")
	if r.withApt {
		write(filepath.Join(bin, "apt-get"), `#!/bin/bash
echo "$*" >> `+calls+`
[[ "$1" == install ]] || exit 0
pkg="${@: -1}"
[[ "$pkg" == "`+r.aptFails+`" ]] && { echo "E: Unable to locate package $pkg"; exit 100; }
case "$pkg" in bubblewrap) cmd=bwrap ;; busybox-static) cmd=busybox ;; python3-pytest) cmd=pytest-3 ;; *) cmd="$pkg" ;; esac
printf '#!/bin/bash\n' > "`+bin+`/$cmd"; /bin/chmod +x "`+bin+`/$cmd"
`)
	}
	marker := filepath.Join(dir, "hook-ran")
	if r.hook {
		write(filepath.Join(scripts, "agent-clis.sh"), "#!/bin/bash\necho ran > "+marker+"\n")
	}
	cmd := exec.Command("/bin/bash", filepath.Join(scripts, "test-deps.sh"))
	cmd.Env = []string{"PATH=" + bin, "TMPDIR=" + dir}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	res := depsResult{}
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		res.code = ee.ExitCode()
	}
	res.stdout, res.stderr = stdout.String(), stderr.String()
	if b, err := os.ReadFile(calls); err == nil {
		res.apt = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	_, err = os.Stat(marker)
	res.hookRan = err == nil
	return res
}

func TestDepsPresentInstallNothing(t *testing.T) {
	res := depsRun{uid: "0", have: []string{"redis-server", "chromium", "bwrap", "busybox", "pytest-3"}, withApt: true}.run(t)
	if res.code != 0 || res.apt != nil || res.stdout != "" {
		t.Fatalf("%+v", res)
	}
}

// As root with apt-get: one update, then one install line per missing package.
func TestMissingDepsAreInstalledAsRoot(t *testing.T) {
	res := depsRun{uid: "0", have: []string{"redis-server"}, withApt: true}.run(t)
	want := []string{"update", "install -y chromium", "install -y bubblewrap", "install -y busybox-static", "install -y python3-pytest"}
	if res.code != 0 || strings.Join(res.apt, "|") != strings.Join(want, "|") {
		t.Fatalf("exit %d, apt-get calls %q, stderr %s", res.code, res.apt, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], "installing chromium") || !strings.Contains(lines[2], "installing bubblewrap") {
		t.Fatalf("stdout %q", res.stdout)
	}
}

// Not root, or no apt-get: fail naming the one command, install nothing.
func TestMissingDepsWithoutRootNameTheCommand(t *testing.T) {
	for _, r := range []depsRun{
		{uid: "1000", have: []string{"chromium"}, withApt: true},
		{uid: "0", have: []string{"chromium"}},
	} {
		res := r.run(t)
		if res.code == 0 || res.apt != nil || !strings.Contains(res.stderr, "sudo apt-get install -y redis-server bubblewrap busybox-static python3-pytest") {
			t.Errorf("uid %s apt %v: %+v", r.uid, r.withApt, res)
		}
	}
}

func TestFailedInstallFails(t *testing.T) {
	res := depsRun{uid: "0", withApt: true, aptFails: "chromium"}.run(t)
	if res.code == 0 || !strings.Contains(res.stderr, "apt-get install -y chromium failed") || !strings.Contains(res.stderr, "Unable to locate package") {
		t.Fatalf("%+v", res)
	}
}

func TestAgentCLIHookRuns(t *testing.T) {
	if res := (depsRun{uid: "1000", have: []string{"redis-server", "chromium", "bwrap", "busybox", "pytest-3"}, hook: true}).run(t); res.code != 0 || !res.hookRan {
		t.Fatalf("%+v", res)
	}
}

// make test runs the check before any test.
func TestMakeTestChecksDepsFirst(t *testing.T) {
	b, err := os.ReadFile("test.sh")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	deps, vet := strings.Index(s, "\nscripts/test-deps.sh\n"), strings.Index(s, "go vet")
	if deps < 0 || vet < deps {
		t.Fatalf("scripts/test.sh does not run scripts/test-deps.sh before the tests:\n%s", s)
	}
}
