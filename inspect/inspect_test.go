package inspect

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, kv ...string) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		p := filepath.Join(dir, kv[i])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(kv[i+1]), 0o644); err != nil {
			t.Fatal(err)
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
