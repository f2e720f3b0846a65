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
	var stderr bytes.Buffer
	la, rest, err := Parse([]string{"--repo", checkout, "--title", "Add returns the difference", "--mode", "maintenance", "--json",
		"--llm-base-url", model.URL() + "/v1"}, &stderr)
	if err != nil || !la.JSON || la.Base != "main" && la.Base != "master" || len(rest) != 2 {
		t.Fatalf("parse: %+v %q %v", la, rest, err)
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
	if err != nil || rec.Outcome != outcome.Completed {
		t.Fatalf("%+v %v\n%s", rec, err, stderr.String())
	}
	show, err := exec.Command("git", "-C", checkout, "show", "warden/0-add-returns-the-difference:calc/calc.go").CombinedOutput()
	if err != nil || !strings.Contains(string(show), "return a + b") {
		t.Fatalf("the fix is not on the local branch: %v %s", err, show)
	}
	if branches := gitfixture.Branches(t, bare); len(branches) != 1 {
		t.Fatalf("bot run pushed to the origin: %v", branches)
	}
}

func TestParseRejects(t *testing.T) {
	dir := t.TempDir() // not a git checkout
	for _, args := range [][]string{
		{"--title", "t"},
		{"--repo", dir},
		{"--repo", dir, "--title", "t", "--mode", "chaos"},
		{"--repo", dir, "--title", "t"},
	} {
		if _, _, err := Parse(args, io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}
