package localrun

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/agent/sessions"
	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/gitfixture"
)

// runOn runs the whole pipeline on a checkout of files and returns the
// outcome record and how many model calls were made.
func runOn(t *testing.T, files map[string]string) (outcome.Record, int) {
	t.Helper()
	model := fakemodel.New()
	defer model.Close()
	calls := 0
	model.Script(func(r fakemodel.Request) fakemodel.Reply {
		calls++
		return fakemodel.Reply{Text: `{"decision":"implement","summary":"x","approach":"x","files":["a.txt"]}`}
	})
	bare, _ := gitfixture.NewRepo(t, files)
	checkout := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("git", "clone", "--quiet", bare, checkout).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	var stderr bytes.Buffer
	la, rest, err := Parse([]string{"--repo", checkout, "--title", "Fix it", "--mode", "maintenance", "--json", "--llm-base-url", model.URL() + "/v1"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(rest, func(k string) string { return map[string]string{"WARDEN_LLM_API_KEY": "sk-test-0123456789abcdef"}[k] }, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	newSession, err := sessions.New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := Run(context.Background(), la, newSession, "warden", log, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return rec, calls
}

// Nothing says how to test the repository: the attempt ends blocked before
// any model call, and the record says what to set.
func TestNothingInferredIsBlocked(t *testing.T) {
	rec, calls := runOn(t, map[string]string{"README.md": "hello\n", "a.txt": "x\n"})
	if rec.Outcome != outcome.Blocked || !strings.Contains(rec.Summary, "set `test:`") || rec.Obstacle.Kind != "environment" {
		t.Fatalf("%+v", rec)
	}
	if calls != 0 {
		t.Fatalf("%d model calls before the environment was settled", calls)
	}
}

// A Gemfile infers `bundle exec rake test`; with no bundle in the sandbox the
// attempt is blocked with the tool named, never handed to the model as a
// test failure.
func TestMissingToolchainIsBlocked(t *testing.T) {
	if _, err := exec.LookPath("bundle"); err == nil {
		t.Fatal("this test needs a machine without Ruby's bundle on PATH (it proves the missing-toolchain path)")
	}
	rec, calls := runOn(t, map[string]string{"Gemfile": "source 'https://rubygems.org'\n", "a.txt": "x\n"})
	if rec.Outcome != outcome.Blocked || !strings.Contains(rec.Summary, "`bundle`") || !strings.Contains(rec.Summary, "inferred from `Gemfile`") || !strings.Contains(rec.Summary, "image:") {
		t.Fatalf("%+v", rec)
	}
	if calls != 0 {
		t.Fatalf("%d model calls", calls)
	}
}
