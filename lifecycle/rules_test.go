package lifecycle

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/warden-bot/warden/github/branchrules"
	"github.com/warden-bot/warden/jobs"
)

func (g *gateGH) evaluate(t *testing.T, l *Lifecycle) string {
	t.Helper()
	if err := l.PR(context.Background(), jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: 3, SHA: gateHead, Action: "checks"}); err != nil {
		t.Fatal(err)
	}
	return strings.Join(g.comments, "\n")
}

func (g *gateGH) mergeCalls() int { return len(g.rules.methods) }

// A ruleset requiring one approving review: green CI is not enough; the PR
// waits without a merge call and the status comment says so in GitHub's
// words; a reader's approval does not count, a writer's does.
func TestRequiredReviewWaits(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.ruleset("pull_request", map[string]any{"dismiss_stale_reviews_on_push": false, "require_code_owner_review": false,
		"require_last_push_approval": false, "required_approving_review_count": 1, "required_review_thread_resolution": false})
	l := g.lifecycle()
	all := g.evaluate(t, l)
	if g.merged || g.mergeCalls() != 0 {
		t.Fatalf("merge called without the required review (calls %d)", g.mergeCalls())
	}
	if !strings.Contains(all, "At least 1 approving review is required by reviewers with write access.") {
		t.Fatalf("status comment does not say what the PR waits for: %q", all)
	}
	g.review("trudy", "APPROVED", false)
	g.evaluate(t, l)
	if g.merged {
		t.Fatal("a reader's approval let the PR merge")
	}
	g.review("alice", "APPROVED", true)
	g.evaluate(t, l)
	if !g.merged || g.rules.methods[0] != "squash" {
		t.Fatalf("merged = %v, methods = %v", g.merged, g.rules.methods)
	}
}

// A required status check that has not reported on the head holds the
// merge, even with another check green.
func TestRequiredCheckMissingWaits(t *testing.T) {
	g := newGateGH(t)
	g.run("lint", "completed", "success")
	g.ruleset("required_status_checks", map[string]any{"strict_required_status_checks_policy": false,
		"required_status_checks": []any{map[string]any{"context": "build"}}})
	l := g.lifecycle()
	all := g.evaluate(t, l)
	if g.merged || g.mergeCalls() != 0 || !strings.Contains(all, `Required status check "build" is expected.`) {
		t.Fatalf("merged=%v calls=%d comments=%q", g.merged, g.mergeCalls(), all)
	}
	g.run("build", "completed", "success")
	g.evaluate(t, l)
	if !g.merged {
		t.Fatal("not merged once the required check passed")
	}
}

// The repository does not allow squash merges. Its settings are not read
// up front (no GET of the repository): GitHub's refusal of squash names it,
// Warden merges with the next method, and the next PR of the repository
// within the rules' cache goes straight to that method.
func TestSquashNotAllowedIsLearnedFromTheRefusal(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.refuse(405, "Squash merges are not allowed on this repository.")
	l := g.lifecycle()
	l.Rules = &branchrules.Reader{}
	g.evaluate(t, l)
	if !g.merged || !slices.Equal(g.rules.methods, []string{"squash", "merge"}) {
		t.Fatalf("merged=%v methods=%v", g.merged, g.rules.methods)
	}
	for _, p := range g.paths {
		if p == "GET " { // GET /repos/{o}/{r}
			t.Fatalf("the repository's settings were read: %q", g.paths)
		}
	}
	g.merged, g.pull["merged"], g.pull["state"] = false, false, "open"
	g.evaluate(t, l)
	if !g.merged || !slices.Equal(g.rules.methods, []string{"squash", "merge", "merge"}) {
		t.Fatalf("second PR: merged=%v methods=%v", g.merged, g.rules.methods)
	}
}

// Settings Warden could not read: GitHub's 405 for squash is read, and the
// next method is tried.
func TestSquashRefusedTriesTheNextMethod(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.refuse(405, "Squash merges are not allowed on this repository.")
	g.evaluate(t, g.lifecycle())
	if !g.merged || !slices.Equal(g.rules.methods, []string{"squash", "merge"}) {
		t.Fatalf("merged=%v methods=%v", g.merged, g.rules.methods)
	}
}

// merge_method in .github/warden.yml picks the method; one the repository
// does not allow is said, not silently replaced.
func TestConfiguredMergeMethod(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.rules.rulesets = nil
	g.ruleset("pull_request", map[string]any{"allowed_merge_methods": []any{"squash"}, "dismiss_stale_reviews_on_push": false,
		"require_code_owner_review": false, "require_last_push_approval": false, "required_approving_review_count": 0, "required_review_thread_resolution": false})
	g.rules.config = "merge_method: rebase\n"
	all := g.evaluate(t, g.lifecycle())
	if g.merged || g.mergeCalls() != 0 || !strings.Contains(all, `merge_method in .github/warden.yml is "rebase"`) {
		t.Fatalf("merged=%v calls=%d comments=%q", g.merged, g.mergeCalls(), all)
	}
}

// A refusal Warden could not foresee is said once, in GitHub's words, and
// nothing is retried until an event.
func TestRefusalIsSaidInGitHubsWords(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.refuse(405, "Waiting on code owner review from acme/maintainers.")
	all := g.evaluate(t, g.lifecycle())
	if g.merged || !strings.Contains(all, "Waiting on code owner review from acme/maintainers.") || g.mergeCalls() != 1 {
		t.Fatalf("merged=%v calls=%d comments=%q", g.merged, g.mergeCalls(), all)
	}
}

// A merge queue required by the rules: the PR is enqueued through GraphQL
// with its head, once per head, and never merged with the REST call.
func TestMergeQueueEnqueues(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.ruleset("merge_queue", map[string]any{"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
		"max_entries_to_merge": 5, "merge_method": "SQUASH", "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5})
	l := g.lifecycle()
	all := g.evaluate(t, l)
	g.evaluate(t, l)
	if g.mergeCalls() != 0 || len(g.rules.graphql) != 1 || !strings.Contains(g.rules.graphql[0], "enqueuePullRequest") {
		t.Fatalf("merge calls %d, graphql %q", g.mergeCalls(), g.rules.graphql)
	}
	if !strings.Contains(all, "is in the merge queue") {
		t.Fatalf("status comment = %q", all)
	}
}

// The queue removed the PR: reported like a red CI run.
func TestDequeuedIsReportedLikeRedCI(t *testing.T) {
	g := newGateGH(t)
	l := g.lifecycle()
	if err := l.PR(context.Background(), jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: 3, Action: "dequeued", Reason: "dequeued"}); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(g.comments, "\n")
	if !strings.Contains(all, "CI failed on PR #3") || !strings.Contains(all, "removed from the merge queue") {
		t.Fatalf("comments = %q", all)
	}
}

// No green PR stays unmerged without a word: auto_merge off is said.
func TestAutoMergeOffIsSaid(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.rules.config = "maintenance: {auto_merge: false}\n"
	all := g.evaluate(t, g.lifecycle())
	if g.merged || !strings.Contains(all, "auto_merge` is off") {
		t.Fatalf("merged=%v comments=%q", g.merged, all)
	}
}

// An invalid default-branch .github/warden.yml stops the merge and says so
// on the issue (before, the evaluation failed with only a log line).
func TestInvalidConfigIsSaid(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.rules.config = "maintenance: {auto_merge: [\n"
	all := g.evaluate(t, g.lifecycle())
	if g.merged || !strings.Contains(all, ".github/warden.yml on `main` cannot be used") {
		t.Fatalf("merged=%v comments=%q", g.merged, all)
	}
}

// A refusal that passes by itself is said in GitHub's words.
func TestBaseModifiedIsSaid(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.refuse(405, "Base branch was modified. Review and try the merge again.")
	all := g.evaluate(t, g.lifecycle())
	if g.merged || !strings.Contains(all, "Base branch was modified. Review and try the merge again.") {
		t.Fatalf("merged=%v comments=%q", g.merged, all)
	}
}

// The queue refuses the PR (GitHub's GraphQL error shape; the message as
// flutter/cocoon#5017 recorded it, the login changed) where the
// repository allows auto-merge: auto-merge is enabled instead, and said.
func TestMergeQueueFallsBackToAutoMerge(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.ruleset("merge_queue", map[string]any{"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
		"max_entries_to_merge": 5, "merge_method": "SQUASH", "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5})
	repo := gateFixture(t, "pull_request.synchronize.json")["repository"].(map[string]any)
	repo["allow_auto_merge"] = true
	g.rules.repo = repo
	g.rules.gqlAnswer = `{"data":{"enqueuePullRequest":null},"errors":[{"type":"UNPROCESSABLE","path":["enqueuePullRequest"],"message":"Pull request New changes require approval from someone other than warden-test[bot] because they were the last pusher."}]}`
	all := g.evaluate(t, g.lifecycle())
	if len(g.rules.graphql) != 2 || !strings.Contains(g.rules.graphql[1], "enablePullRequestAutoMerge") || !strings.Contains(all, "auto-merge enabled") {
		t.Fatalf("graphql %q comments %q", g.rules.graphql, all)
	}
}

// An evolution PR keeps warden/mode as it is; when the branch's rules ask
// for more than one approving review, the status comment says so.
func TestEvolutionSaysWhenRulesWantMoreReviews(t *testing.T) {
	g := newGateGH(t)
	g.pull["body"] = "Fixes #7\n\n<!-- warden:pr {\"issue\":7,\"mode\":\"evolution\"} -->"
	g.ruleset("pull_request", map[string]any{"dismiss_stale_reviews_on_push": false, "require_code_owner_review": false,
		"require_last_push_approval": false, "required_approving_review_count": 2, "required_review_thread_resolution": false})
	g.review("alice", "APPROVED", true)
	all := g.evaluate(t, g.lifecycle())
	if g.merged || g.mergeCalls() != 0 || !strings.Contains(all, "require 2 approving reviews") {
		t.Fatalf("merged=%v comments=%q", g.merged, all)
	}
}

// A marker that names another issue than the PR's own Warden branch is not
// the one Warden wrote (a copy in text, or a branch renamed): the PR is not
// acted on, however green, and no other issue is touched.
func TestMarkerDisagreeingWithTheBranchIsNotActedOn(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.pull["body"] = "Fixes #9\n\n<!-- warden:pr {\"issue\":9,\"mode\":\"maintenance\"} -->"
	all := g.evaluate(t, g.lifecycle())
	if g.merged || g.mergeCalls() != 0 || all != "" {
		t.Fatalf("merged=%v merge calls=%d comments=%q: a PR whose marker names #9 on branch warden/7-… was acted on", g.merged, g.mergeCalls(), all)
	}
}
