package branchrules

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

// rulesFrom folds a GET …/rules/branches/{branch} body into Rules.
func rulesFrom(t *testing.T, body string) Rules {
	t.Helper()
	var got []rule
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	var r Rules
	for _, x := range got {
		r.apply(x)
	}
	return r
}

// Rule objects shaped as GitHub's OpenAPI schemas (repository-rule-*), in
// the envelope of its repository-rule-items example; two rulesets layer.
const layered = `[
 {"type":"pull_request","ruleset_source_type":"Repository","ruleset_source":"monalisa/my-repo","ruleset_id":42,
  "parameters":{"allowed_merge_methods":["merge","squash"],"dismiss_stale_reviews_on_push":true,"require_code_owner_review":false,
   "require_last_push_approval":false,"required_approving_review_count":1,"required_review_thread_resolution":false}},
 {"type":"pull_request","ruleset_source_type":"Organization","ruleset_source":"my-org","ruleset_id":73,
  "parameters":{"allowed_merge_methods":["squash","rebase"],"dismiss_stale_reviews_on_push":false,"require_code_owner_review":true,
   "require_last_push_approval":false,"required_approving_review_count":2,"required_review_thread_resolution":false}},
 {"type":"required_status_checks","ruleset_source_type":"Repository","ruleset_source":"monalisa/my-repo","ruleset_id":42,
  "parameters":{"strict_required_status_checks_policy":false,"required_status_checks":[{"context":"build"},{"context":"test","integration_id":15368}]}},
 {"type":"required_signatures","ruleset_source_type":"Repository","ruleset_source":"monalisa/my-repo","ruleset_id":42},
 {"type":"required_linear_history","ruleset_source_type":"Repository","ruleset_source":"monalisa/my-repo","ruleset_id":42},
 {"type":"merge_queue","ruleset_source_type":"Repository","ruleset_source":"monalisa/my-repo","ruleset_id":42,
  "parameters":{"check_response_timeout_minutes":60,"grouping_strategy":"ALLGREEN","max_entries_to_build":5,"max_entries_to_merge":5,
   "merge_method":"SQUASH","min_entries_to_merge":1,"min_entries_to_merge_wait_minutes":5}},
 {"type":"commit_message_pattern","ruleset_source_type":"Repository","ruleset_source":"monalisa/my-repo","ruleset_id":42,
  "parameters":{"operator":"starts_with","pattern":"issue"}}
]`

func TestRulesLayerStrictestWins(t *testing.T) {
	r := rulesFrom(t, layered)
	if r.Approvals != 2 || !r.CodeOwners || !r.DismissStale || !r.Signatures || !r.Linear || !r.MergeQueue || r.QueueMethod != "squash" {
		t.Fatalf("rules = %+v", r)
	}
	if !slices.Equal(r.RuleMethods, []string{"squash"}) || !slices.Equal(r.RequiredChecks, []string{"build", "test"}) {
		t.Fatalf("methods %v checks %v", r.RuleMethods, r.RequiredChecks)
	}
}

func TestMethodChoice(t *testing.T) {
	cases := []struct {
		name       string
		r          Rules
		configured string
		want       string
	}{
		{"defaults to squash", Rules{}, "", Squash},
		{"first the repository allows", Rules{RepoMethods: []string{Rebase, Merge}}, "", Merge},
		{"rules narrow the repository", Rules{RepoMethods: []string{Merge, Rebase}, RuleMethods: []string{Rebase}}, "", Rebase},
		{"linear history rules out merge commits", Rules{RepoMethods: []string{Merge, Rebase}, Linear: true}, "", Rebase},
		{"configured and allowed", Rules{}, Rebase, Rebase},
		{"configured but not allowed", Rules{RepoMethods: []string{Squash}}, Rebase, ""},
		{"signatures: only squash lands unsigned commits", Rules{Signatures: true, RepoMethods: []string{Merge, Squash}}, "", Squash},
		{"signatures without squash", Rules{Signatures: true, RepoMethods: []string{Merge, Rebase}}, "", ""},
	}
	for _, tc := range cases {
		if got := tc.r.Method(tc.configured); got != tc.want {
			t.Errorf("%s: Method = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestWaitsInGitHubsWords(t *testing.T) {
	r := Rules{RequiredChecks: []string{"build", "test", "lint"}, Approvals: 2}
	h := Head{Contexts: map[string]string{"test": "pending", "lint": "success"}, Approvals: 1}
	got := strings.Join(r.Waits(h, "", false), "\n")
	for _, want := range []string{`Required status check "build" is expected.`, `Required status check "test" has not completed yet.`,
		"At least 2 approving reviews are required by reviewers with write access."} {
		if !strings.Contains(got, want) {
			t.Errorf("waits %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "lint") {
		t.Errorf("a passing required check is waited for: %q", got)
	}
	if w := (Rules{Signatures: true}).Waits(Head{}, "", true); len(w) != 1 || !strings.Contains(w[0], "verified signatures") {
		t.Errorf("signatures on Enterprise Server: %q", w)
	}
	if w := (Rules{RepoMethods: []string{Merge}}).Waits(Head{}, Squash, false); len(w) != 1 || !strings.Contains(w[0], `merge_method in .github/warden.yml is "squash"`) {
		t.Errorf("configured method refused: %q", w)
	}
}

func refusal(code int, msg string) error {
	return &github.ErrorResponse{Response: &http.Response{StatusCode: code}, Message: msg}
}

// GitHub's messages, as API clients have recorded them.
func TestParseRefusal(t *testing.T) {
	cases := []struct {
		code  int
		msg   string
		kind  Kind
		retry bool
	}{
		{405, "Squash merges are not allowed on this repository.", MethodRefused, false},
		{405, "Merge commits are not allowed on this repository.", MethodRefused, false},
		{405, "Repository rule violations found\n\nChanges must be made through the merge queue", QueueRequired, false},
		{405, "At least 1 approving review is required by reviewers with write access.", Blocked, false},
		{405, `Required status check "Codacy/PR Quality Review" is expected.`, Blocked, false},
		{405, "Base branch was modified. Review and try the merge again.", Transient, true},
		{409, "Head branch was modified. Review and try the merge again.", HeadMoved, false},
		{405, "Pull Request is not mergeable", Transient, true},
	}
	for _, tc := range cases {
		r, ok := ParseRefusal(refusal(tc.code, tc.msg))
		if !ok || r.Kind != tc.kind || (r.RetryAfter > 0) != tc.retry || r.Message != tc.msg {
			t.Errorf("%q: %+v ok=%v", tc.msg, r, ok)
		}
	}
	if _, ok := ParseRefusal(refusal(502, "Bad Gateway")); ok {
		t.Error("a 502 read as a refusal")
	}
	if _, ok := ParseRefusal(errors.New("dial tcp: refused")); ok {
		t.Error("a network error read as a refusal")
	}
	if MethodOf("Squash merges are not allowed on this repository.") != Squash || MethodOf("Merge commits are not allowed on this repository.") != Merge {
		t.Error("MethodOf")
	}
}

func TestReaderCachesAndInvalidates(t *testing.T) {
	now := time.Unix(0, 0)
	r := &Reader{TTL: time.Minute, Now: func() time.Time { return now }}
	r.cache = map[string]cached{"o/r@main": {rules: Rules{Approvals: 3}, at: now}}
	got, err := r.Get(t.Context(), nil, "o", "r", "main")
	if err != nil || got.Approvals != 3 {
		t.Fatalf("cached read = %+v, %v", got, err)
	}
	r.Invalidate("o/r")
	if len(r.cache) != 0 {
		t.Fatal("Invalidate kept the repository's rules")
	}
}
