package comments

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/outcome"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./comments -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n%s", name, path, got)
	}
}

func TestGoldenOutcomes(t *testing.T) {
	base := outcome.Record{Attempt: 1, Mode: "maintenance", Approach: "Replace the subtraction with an addition.", Files: []string{"calc/calc.go"}, CostUSD: 0.0123, Tokens: 4200, Fingerprint: "abc123def456", SpentUSD: 0.0456, BudgetUSD: 1}
	cases := map[string]struct {
		rec outcome.Record
		d   Details
	}{
		"completed": {with(base, func(r *outcome.Record) {
			r.Outcome, r.PR, r.GoalStatus, r.Summary = outcome.Completed, 12, "achieved", "Opened PR #12."
		}), Details{}},
		"test_failure": {with(base, func(r *outcome.Record) {
			r.Outcome, r.FailureClass, r.Summary = outcome.Escalated, outcome.TestFailure, "the tests still fail after 3 fix attempts"
		}), Details{ToolOutput: "--- FAIL: TestAdd (0.00s)\n    calc_test.go:6: Add(2, 3) = 6, want 5\nFAIL", ToolOutputTitle: "Test output"}},
		"guard": {with(base, func(r *outcome.Record) {
			r.Outcome, r.FailureClass, r.Summary = outcome.Escalated, outcome.GuardViolation, "protected_path: calc/calc_test.go"
		}), Details{}},
		"retryable": {with(base, func(r *outcome.Record) {
			r.Outcome, r.FailureClass, r.Summary = outcome.Retryable, outcome.Transient, "model API answered 503"
		}), Details{}},
		"deferred": {with(base, func(r *outcome.Record) { r.Outcome, r.Summary = outcome.Deferred, "waiting for an upstream release" }), Details{}},
		"decomposed": {with(base, func(r *outcome.Record) {
			r.Outcome, r.Summary = outcome.Decomposed, "Split into #13, #14; this issue completes when they do."
		}), Details{}},
		"blocked": {with(base, func(r *outcome.Record) {
			r.Outcome, r.Obstacle = outcome.Blocked, outcome.Obstacle{Kind: "missing_prerequisite", Detail: "needs the new API", Task: "#9"}
		}), Details{}},
		"canceled": {with(base, func(r *outcome.Record) {
			r.Outcome, r.FailureClass, r.Summary = outcome.Escalated, outcome.Canceled, "Canceled: the trigger label was removed"
		}), Details{}},
		"budget": {with(base, func(r *outcome.Record) {
			r.Outcome, r.FailureClass, r.Summary = outcome.Escalated, outcome.BudgetExhausted, "the budget is spent: $1.01 of $1.00"
		}), Details{}},
		"hollow_review": {with(base, func(r *outcome.Record) {
			r.Outcome, r.FailureClass, r.GoalStatus = outcome.Escalated, outcome.Hollow, "hollow"
		}), Details{}},
	}
	for name, c := range cases {
		body := RenderOutcome(c.rec, c.d)
		golden(t, "outcome_"+name, body)
		if rec, ok := ParseRecord(body); !ok || rec.Outcome != c.rec.Outcome || rec.V != 1 {
			t.Errorf("%s: record not parseable back: %+v", name, rec)
		}
	}
	golden(t, "status_running", RenderStatus(Status{Mode: "maintenance", Attempt: 2, State: "running", Stages: []StageLine{{"Plan", "done", ""}, {"Implement", "running", ""}, {"Test", "pending", ""}}}))
}

func with(r outcome.Record, f func(*outcome.Record)) outcome.Record { f(&r); return r }

func TestRedaction(t *testing.T) {
	r := NewRedactor("whsec-configured-secret-42", "sk-live-model-key-abcdefgh")
	tok := "ghs_" + strings.Repeat("A1b2C3d4", 5)
	cases := []string{
		"token " + tok + " leaked",
		"Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123",
		"https://x-access-token:" + tok + "@github.com/o/r.git",
		"key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
		"AKIAABCDEFGHIJKLMNOP",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
		"the secret is whsec-configured-secret-42.",
		"github_pat_" + strings.Repeat("x", 40),
		// Wrapped at a line break inside tool output:
		"panic: bad token " + tok[:20] + "\n" + tok[20:] + " rest",
		"configured whsec-configured-\r\nsecret-42 split",
	}
	for _, c := range cases {
		got := r.Redact(c)
		for _, secret := range []string{tok, tok[:20], tok[20:], "whsec-configured", "secret-42", "sk-ant-api03", "AKIAABCDEFGHIJKLMNOP", "MIIEowIBAAKCAQEA", "abcdefghijklmnopqrstuvwxyz0123", "github_pat_x"} {
			if strings.Contains(got, secret) {
				t.Errorf("%q survived in %q", secret, got)
			}
		}
		if !strings.Contains(got, Redacted) {
			t.Errorf("nothing redacted in %q", got)
		}
	}
	if got := r.Redact("an ordinary sentence about tokens"); got != "an ordinary sentence about tokens" {
		t.Errorf("over-redacted: %q", got)
	}
}

func TestFitNeverExceedsLimit(t *testing.T) {
	rec := outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.TestFailure, Attempt: 1, Mode: "maintenance"}
	for _, size := range []int{10, 70000, 300000} {
		out := strings.Repeat("line of test output ```\n", size/24+1)
		body := Fit(RenderOutcome(rec, Details{ToolOutput: out}), Limit)
		if n := utf8.RuneCountInString(body); n > Limit {
			t.Fatalf("size %d: body has %d characters", size, n)
		}
		if _, ok := ParseRecord(body); !ok {
			t.Fatalf("size %d: record lost", size)
		}
		if strings.Count(body, "<details>") != strings.Count(body, "</details>") || strings.Count(body, "```text") != 1 {
			t.Fatalf("size %d: blocks unbalanced", size)
		}
	}
	huge := strings.Repeat("é", 100000)
	if n := utf8.RuneCountInString(Fit(huge, Limit)); n > Limit {
		t.Fatalf("prose: %d", n)
	}
}

// fakeIssues records writes as strings, Prow style.
type fakeIssues struct {
	comments []*github.IssueComment
	writes   []string
	nextID   int64
	lists    int
}

func (f *fakeIssues) ListComments(_ context.Context, o, r string, n int, _ *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error) {
	f.lists++
	out := make([]*github.IssueComment, len(f.comments))
	for i, c := range f.comments {
		cp := *c
		out[i] = &cp
	}
	return out, &github.Response{}, nil
}
func (f *fakeIssues) CreateComment(_ context.Context, o, r string, n int, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	f.nextID++
	nc := &github.IssueComment{ID: github.Int64(f.nextID), Body: c.Body, User: &github.User{Login: github.String("warden[bot]"), ID: github.Int64(4242)}}
	f.comments = append(f.comments, nc)
	f.writes = append(f.writes, fmt.Sprintf("%s/%s#%d:create", o, r, n))
	return nc, nil, nil
}
func (f *fakeIssues) EditComment(_ context.Context, o, r string, id int64, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	f.writes = append(f.writes, fmt.Sprintf("%s/%s:edit:%d", o, r, id))
	for _, x := range f.comments {
		if x.GetID() == id {
			x.Body = c.Body
			return x, nil, nil
		}
	}
	gone := &http.Response{StatusCode: http.StatusNotFound, Request: &http.Request{}}
	return nil, &github.Response{Response: gone}, &github.ErrorResponse{Response: gone, Message: "Not Found"}
}

func TestPosterUpsertsByAuthorAndMarker(t *testing.T) {
	f := &fakeIssues{comments: []*github.IssueComment{{ID: github.Int64(99), Body: github.String(StatusMarker + " pasted by a user"), User: &github.User{Login: github.String("mallory")}}}}
	p := &Poster{Client: f, BotLogin: "warden[bot]", Redactor: NewRedactor()}
	ctx := context.Background()
	p.UpsertStatus(ctx, "o", "r", 1, RenderStatus(Status{State: "queued"}))
	p.UpsertStatus(ctx, "o", "r", 1, RenderStatus(Status{State: "queued"}))
	p.UpsertStatus(ctx, "o", "r", 1, RenderStatus(Status{State: "running"}))
	want := []string{"o/r#1:create", "o/r:edit:1"}
	if strings.Join(f.writes, ",") != strings.Join(want, ",") {
		t.Fatalf("writes = %v, want %v (the user's pasted marker must be ignored, an unchanged body not edited)", f.writes, want)
	}
	rec := outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.TestFailure, Fingerprint: "fp1", Attempt: 1}
	p.PostOutcome(ctx, "o", "r", 1, rec, Details{})
	rec.Attempt = 2
	p.PostOutcome(ctx, "o", "r", 1, rec, Details{})
	if len(f.comments) != 3 || !strings.Contains(f.comments[2].GetBody(), "2 times") {
		t.Fatalf("same fingerprint should edit with a repeat count; comments: %d\n%s", len(f.comments), f.comments[len(f.comments)-1].GetBody())
	}
	recs, _ := p.PriorOutcomes(ctx, "o", "r", 1)
	if len(recs) != 1 || recs[0].Repeat != 2 || recs[0].Attempt != 2 {
		t.Fatalf("prior = %+v", recs)
	}
}

// A remembering poster lists the issue's comments once and follows its own
// writes: the status comment is found again and a repeated outcome is
// still recognised without another listing.
func TestPosterRemembersItsListing(t *testing.T) {
	f := &fakeIssues{}
	p := &Poster{Client: f, BotLogin: "warden[bot]", Redactor: NewRedactor(), Remember: true}
	ctx := context.Background()
	if _, err := p.PriorOutcomes(ctx, "o", "r", 1); err != nil {
		t.Fatal(err)
	}
	id, _ := p.UpsertStatus(ctx, "o", "r", 1, RenderStatus(Status{State: "queued"}))
	if id2, _ := p.UpsertStatus(ctx, "o", "r", 1, RenderStatus(Status{State: "running"})); id2 != id {
		t.Fatalf("status comment %d, then %d", id, id2)
	}
	rec := outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.TestFailure, Fingerprint: "fp1", Attempt: 1}
	p.PostOutcome(ctx, "o", "r", 1, rec, Details{})
	p.PostOutcome(ctx, "o", "r", 1, rec, Details{})
	want := []string{"o/r#1:create", "o/r:edit:1", "o/r#1:create", "o/r:edit:2"}
	if f.lists != 1 || strings.Join(f.writes, ",") != strings.Join(want, ",") {
		t.Fatalf("lists = %d, writes = %v, want one listing and %v", f.lists, f.writes, want)
	}
}
