package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/gitfixture"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestServeWithoutSecretExits2NamingIt(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"serve"}, envOf(nil), &bytes.Buffer{}, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "WARDEN_WEBHOOK_SECRET") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

func TestBadSettingExits2(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"serve", "--concurrency", "0"}, envOf(map[string]string{"WARDEN_WEBHOOK_SECRET": "s"}), &bytes.Buffer{}, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "WARDEN_CONCURRENCY") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if code := run([]string{"frobnicate"}, envOf(nil), &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
		t.Fatalf("unknown command exit %d", code)
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"version"}, envOf(nil), &out, &bytes.Buffer{}); code != 0 || !strings.Contains(out.String(), "warden dev") || !strings.Contains(out.String(), "go1.") {
		t.Fatalf("exit %d: %q", code, out.String())
	}
}

// bot run: the whole pipeline on a local checkout against the fake model; the
// change stays on a local branch and nothing is pushed anywhere else.
func TestRunLocal(t *testing.T) {
	model := fakemodel.New()
	defer model.Close()
	model.Script(func(r fakemodel.Request) fakemodel.Reply {
		switch r.Stage {
		case "plan":
			return fakemodel.Reply{Text: `{"decision":"implement","summary":"Fix Add","approach":"add instead of subtract","files":["calc/calc.go"]}`}
		case "implement", "fix":
			return fakemodel.Reply{Text: "calc/calc.go\n<<<<<<< SEARCH\n\treturn a - b\n=======\n\treturn a + b\n>>>>>>> REPLACE\n"}
		}
		return fakemodel.Reply{Text: `{"goal_status":"achieved","missing":""}`}
	})
	bare, _ := gitfixture.NewRepo(t, gitfixture.GoModuleWithBug())
	checkout := filepath.Join(t.TempDir(), "calc")
	if out, err := exec.Command("git", "clone", "--quiet", bare, checkout).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--repo", checkout, "--title", "Add returns the difference", "--mode", "maintenance", "--json"},
		envOf(map[string]string{"WARDEN_LLM_BASE_URL": model.URL() + "/v1", "WARDEN_LLM_API_KEY": "sk-test-0123456789abcdef"}), &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), `"outcome":"completed"`) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	show, err := exec.Command("git", "-C", checkout, "show", "warden/0-add-returns-the-difference:calc/calc.go").CombinedOutput()
	if err != nil || !strings.Contains(string(show), "return a + b") {
		t.Fatalf("the fix is not on the local branch: %v %s", err, show)
	}
	if branches := gitfixture.Branches(t, bare); len(branches) != 1 {
		t.Fatalf("bot run pushed to the origin: %v", branches)
	}
}

func TestLoggerRedactsSecrets(t *testing.T) {
	var buf bytes.Buffer
	cfg := &config.Config{LogLevel: "info", WebhookSecret: "whsec-very-secret-1", LLMAPIKey: "sk-model-key-123456"}
	log := newLogger(cfg, &buf)
	log.Info("calling model with sk-model-key-123456", "err", errors.New("401 for whsec-very-secret-1"), "token", "ghs_"+strings.Repeat("x", 36))
	if s := buf.String(); strings.Contains(s, "sk-model-key") || strings.Contains(s, "whsec-very") || strings.Contains(s, "ghs_xxx") {
		t.Fatalf("secret in log: %s", s)
	}
}
