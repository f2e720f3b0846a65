package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/warden-bot/warden/outcome"
)

var planIn = PlanInput{
	Issue:  IssueInput{Repo: "acme/calc", Number: 7, Title: "Add subtracts", Body: "Add(2, 3) returns -1."},
	Limits: LimitsInput{Mode: "cautious", MaxFiles: 3, MaxLines: 50},
	Tree:   []string{"calc/calc.go", "calc/calc_test.go"},
}

func reply(text string, cost float64) ChatResponse {
	return ChatResponse{Text: text, Usage: Usage{InputTokens: 100, OutputTokens: 10, CostUSD: cost}}
}

func TestSessionPlanParsesFirstReply(t *testing.T) {
	fp := &fakeProvider{replies: []ChatResponse{reply("```json\n"+planJSON+"\n```", 0.01)}}
	s := NewSession(fp, SessionOptions{Repo: "acme/calc", MaxTokens: 2000})
	p, err := s.Plan(context.Background(), planIn)
	if err != nil || p.Decision != "implement" {
		t.Fatalf("Plan = %+v, %v", p, err)
	}
	reqs := fp.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d calls, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Stage != "plan" || r.MaxTokens != 2000 || len(r.Messages) != 2 {
		t.Fatalf("request %+v", r)
	}
	if r.Messages[0].Role != "system" || !strings.Contains(r.Messages[0].Content, "acme/calc") {
		t.Errorf("first message %+v, want the system prompt", r.Messages[0])
	}
	if r.Messages[1].Role != "user" || !strings.Contains(r.Messages[1].Content, "Title: Add subtracts") {
		t.Errorf("second message %+v, want the plan prompt", r.Messages[1])
	}
	if u := s.Usage(); u.InputTokens != 100 || u.OutputTokens != 10 || u.CostUSD != 0.01 {
		t.Errorf("usage %+v", u)
	}
}

// A reply that does not parse gets exactly one repair call, in the same
// conversation, quoting the parse error.
func TestSessionPlanRepairsOnce(t *testing.T) {
	first := "I would implement this: change calc.go so Add returns a + b."
	_, perr := ParsePlan(first)
	fp := &fakeProvider{replies: []ChatResponse{reply(first, 0.01), reply(planJSON, 0.01)}}
	s := NewSession(fp, SessionOptions{})
	p, err := s.Plan(context.Background(), planIn)
	if err != nil || p.Decision != "implement" {
		t.Fatalf("Plan = %+v, %v", p, err)
	}
	reqs := fp.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d calls, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if len(msgs) != 4 || msgs[2].Role != "assistant" || msgs[2].Content != first || msgs[3].Role != "user" {
		t.Fatalf("repair conversation %+v", msgs)
	}
	if !strings.Contains(msgs[3].Content, perr.Error()) || !strings.Contains(msgs[3].Content, "only the JSON object") {
		t.Errorf("repair prompt %q does not quote the parse error %q", msgs[3].Content, perr)
	}
	if u := s.Usage(); u.CostUSD != 0.02 {
		t.Errorf("cost %v, want both calls counted", u.CostUSD)
	}
}

func TestSessionPlanGivesUpAfterOneRepair(t *testing.T) {
	fp := &fakeProvider{replies: []ChatResponse{reply("no idea", 0), reply(`{"decision": "maybe"}`, 0), reply(planJSON, 0)}}
	_, err := NewSession(fp, SessionOptions{}).Plan(context.Background(), planIn)
	if outcome.ClassOf(err) != outcome.ContractFailure || !strings.Contains(err.Error(), "decision must be one of") {
		t.Fatalf("%v, want the second reply's contract failure", err)
	}
	if n := len(fp.requests()); n != 2 {
		t.Fatalf("%d calls, want 2", n)
	}
}

func TestSessionReviewRepairsOnce(t *testing.T) {
	fp := &fakeProvider{replies: []ChatResponse{reply("Looks good to me!", 0), reply(`{"goal_status": "achieved"}`, 0)}}
	r, err := NewSession(fp, SessionOptions{}).Review(context.Background(), ReviewInput{Issue: planIn.Issue, Diff: "--- a/x\n+++ b/x\n"})
	if err != nil || r.GoalStatus != outcome.GoalAchieved {
		t.Fatalf("Review = %+v, %v", r, err)
	}
	if reqs := fp.requests(); len(reqs) != 2 || !strings.Contains(reqs[1].Messages[3].Content, `"goal_status"`) {
		t.Fatalf("calls %+v", reqs)
	}
}

// An edit stage's conversation goes on across feedback turns; a reset starts it over.
func TestSessionEditKeepsConversation(t *testing.T) {
	fp := &fakeProvider{replies: []ChatResponse{reply("blocks 1", 0), reply("blocks 2", 0), reply("blocks 3", 0)}}
	s := NewSession(fp, SessionOptions{})
	var applied []string
	apply := func(r string) ([]string, error) { applied = append(applied, r); return []string{"calc.go"}, nil }
	ctx := context.Background()
	if _, err := s.Edit(ctx, "implement", "implement it", apply); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Edit(ctx, "implement", "the edit did not apply", apply); err != nil {
		t.Fatal(err)
	}
	s.ResetConversation("implement")
	if _, err := s.Edit(ctx, "implement", "start over", apply); err != nil {
		t.Fatal(err)
	}
	reqs := fp.requests()
	if got := []int{len(reqs[0].Messages), len(reqs[1].Messages), len(reqs[2].Messages)}; got[0] != 2 || got[1] != 4 || got[2] != 2 {
		t.Fatalf("conversation lengths %v, want [2 4 2]", got)
	}
	if reqs[1].Messages[2].Content != "blocks 1" || strings.Join(applied, ",") != "blocks 1,blocks 2,blocks 3" {
		t.Fatalf("conversation %+v, applied %v", reqs[1].Messages, applied)
	}
}

// The budget is checked before every call: once usage reaches it, no call
// is made and the attempt ends budget_exhausted.
func TestSessionBudget(t *testing.T) {
	fp := &fakeProvider{replies: []ChatResponse{reply("a", 0.6), reply("b", 0.4), reply("c", 0.1)}}
	s := NewSession(fp, SessionOptions{BudgetUSD: 1})
	apply := func(string) ([]string, error) { return nil, nil }
	ctx := context.Background()
	for i := range 2 {
		if _, err := s.Edit(ctx, "implement", "go", apply); err != nil {
			t.Fatalf("call %d under budget: %v", i+1, err)
		}
	}
	_, err := s.Edit(ctx, "fix", "go", apply)
	if v := outcome.Classify(err); v.Class != outcome.BudgetExhausted || !strings.Contains(err.Error(), "$1.00 of $1.00") {
		t.Fatalf("at the budget: %v (%s), want budget_exhausted", err, v.Class)
	}
	if n := len(fp.requests()); n != 2 {
		t.Fatalf("%d calls, want 2: the refused call must not reach the provider", n)
	}
	// The repair call of a plan is refused the same way.
	fp2 := &fakeProvider{replies: []ChatResponse{reply("not a plan", 2), reply(planJSON, 0)}}
	if _, err := NewSession(fp2, SessionOptions{BudgetUSD: 1}).Plan(ctx, planIn); outcome.ClassOf(err) != outcome.BudgetExhausted || len(fp2.requests()) != 1 {
		t.Fatalf("plan repair over budget: %v after %d calls", err, len(fp2.requests()))
	}
	// No budget means no limit.
	fp3 := &fakeProvider{replies: []ChatResponse{reply("a", 100), reply("b", 100)}}
	s3 := NewSession(fp3, SessionOptions{})
	for range 2 {
		if _, err := s3.Edit(ctx, "implement", "go", apply); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSessionProviderError(t *testing.T) {
	boom := &outcome.Error{Class: outcome.Transient, Msg: "model API answered 503"}
	fp := &fakeProvider{errs: []error{boom}}
	_, err := NewSession(fp, SessionOptions{}).Plan(context.Background(), planIn)
	if !errors.Is(err, boom) || len(fp.requests()) != 1 {
		t.Fatalf("%v after %d calls, want the provider's error and no repair call", err, len(fp.requests()))
	}
}
