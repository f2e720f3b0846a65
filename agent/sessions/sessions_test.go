package sessions

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"testing"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/test/fakemodel"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestExecAgentMakesExecSessions(t *testing.T) {
	f, err := New(&config.Config{Agent: "exec", AgentCommand: "cat"}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f(sandbox.Tree{Dir: t.TempDir()}, "acme/app", 1)
	if _, ok := s.(*pipeline.ExecSession); err != nil || !ok {
		t.Fatalf("%T %v", s, err)
	}
	// The operator's command reaches its own model; the sandbox still hides every Warden secret.
	if ex := execAgent(&config.Config{AgentCommand: "cat"}); ex.Network != sandbox.Egress || ex.Command != "cat" {
		t.Fatalf("exec agent %+v, want the command with the host's network", ex)
	}
}

// An LLM session talks to the configured endpoint and charges the
// configured price per million tokens.
func TestLLMSessionUsesEndpointAndPrice(t *testing.T) {
	model := fakemodel.New()
	defer model.Close()
	model.Script(func(fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: `{"decision":"implement","summary":"s","approach":"a","files":["a.go"]}`}
	})
	cfg := &config.Config{Agent: "llm", LLMAPI: "openai", LLMBaseURL: model.URL() + "/v1", LLMAPIKey: "sk-test-0123456789",
		LLMModel: "test-model", LLMMaxTokens: 1024, LLMPrice: "10,20"}
	f, err := New(cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f(sandbox.Tree{Dir: t.TempDir()}, "acme/app", 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Plan(context.Background(), agent.PlanInput{Issue: agent.IssueInput{Repo: "acme/app", Number: 1, Title: "t"}}); err != nil {
		t.Fatal(err)
	}
	u := s.Usage()
	want := float64(u.InputTokens)*10/1e6 + float64(u.OutputTokens)*20/1e6
	if u.InputTokens == 0 || math.Abs(u.CostUSD-want) > 1e-12 {
		t.Fatalf("usage %+v, want cost %v", u, want)
	}
	if len(model.Requests()) == 0 {
		t.Fatal("the model endpoint was not called")
	}
}

func TestUnknownAPINamesTheSetting(t *testing.T) {
	_, err := New(&config.Config{Agent: "llm", LLMAPI: "frob", LLMAPIKey: "k"}, quiet)
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Setting != "WARDEN_LLM_API" {
		t.Fatalf("%v", err)
	}
}
