package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakegithub"
)

// GitHub's rule objects (OpenAPI schemas repository-rule-pull-request and
// repository-rule-merge-queue, every required parameter given).
func oneReview() map[string]any {
	return map[string]any{"dismiss_stale_reviews_on_push": false, "require_code_owner_review": false, "require_last_push_approval": false,
		"required_approving_review_count": 1, "required_review_thread_resolution": false}
}

func mergeQueue() map[string]any {
	return map[string]any{"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
		"max_entries_to_merge": 5, "merge_method": "SQUASH", "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5}
}

func (w *world) statusSays(n int, words string) func() bool {
	return func() bool { return strings.Contains(w.CommentWith(n, "<!-- warden:status -->"), words) }
}

// holds asserts the PR stays unmerged (and out of the queue) for a while.
func (w *world) holds(t *testing.T, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if p := w.Pull(); p.Merged || w.GH.Queued(repo, p.Number) {
			t.Fatalf("merged or enqueued while a rule is unmet: %+v", p)
		}
	}
}

func (w *world) queueRef(p fakegithub.Pull) func(m map[string]any) {
	return func(m map[string]any) {
		m["merge_group"].(map[string]any)["head_ref"] = fmt.Sprintf("refs/heads/gh-readonly-queue/main/pr-%d-%s", p.Number, p.HeadSHA)
	}
}

// Acceptance (issue 28): rules requiring a merge queue and one approving
// review. Green CI does not merge, nor enqueue, before the review; the
// status comment says what the PR waits for; after a writer's approval the
// PR is enqueued (GraphQL), and the queue merges it.
func TestMergeQueueAndReviewRequired(t *testing.T) {
	w := withOpenPR(t, 80, "maintenance")
	w.GH.AddRule(repo, "pull_request", oneReview())
	w.GH.AddRule(repo, "merge_queue", mergeQueue())
	p := w.Pull()
	w.CheckRun(p, "success")
	w.Eventually(30*time.Second, w.statusSays(80, "At least 1 approving review is required by reviewers with write access."),
		"the status comment does not say the PR waits for a review")
	w.holds(t, 2*time.Second)
	w.Review(p, "alice", "APPROVED")
	w.Eventually(30*time.Second, func() bool { return w.GH.Queued(repo, p.Number) }, "not enqueued after the approval")
	w.Eventually(10*time.Second, w.statusSays(80, "is in the merge queue"), "the status comment does not say the PR is queued")
	if got := w.Pull().QueuedHead; got != p.HeadSHA {
		t.Fatalf("enqueued expecting head %q, want the judged head %q", got, p.HeadSHA)
	}
	if w.Pull().Merged {
		t.Fatal("merged past the merge queue")
	}
	if code := w.Deliver("merge_group", "merge_group.checks_requested.json", w.queueRef(p)); code >= 300 {
		t.Fatalf("merge_group delivery answered %d", code)
	}
	w.GH.Dequeue(repo, p.Number, true) // the group's checks passed: GitHub merges
	w.Deliver("pull_request", "pull_request.closed.json", func(m map[string]any) {
		pr := m["pull_request"].(map[string]any)
		pr["number"], pr["state"], pr["merged"] = p.Number, "closed", true
		pr["head"].(map[string]any)["ref"], pr["head"].(map[string]any)["sha"] = p.Head, p.HeadSHA
		pr["user"].(map[string]any)["login"] = "warden-test[bot]"
	})
	w.Eventually(30*time.Second, func() bool { return w.HasLabel(80, "warden:completed") }, "issue not completed after the queue merged")
	if got := w.Pull().MergedWith; got != "queue" {
		t.Fatalf("merged with %q, want by the queue", got)
	}
}

// The queue removes the PR (its group failed): reported like a red CI run.
func TestMergeQueueRemovalIsReported(t *testing.T) {
	w := withOpenPR(t, 81, "maintenance")
	w.GH.AddRule(repo, "merge_queue", mergeQueue())
	p := w.Pull()
	w.CheckRun(p, "success")
	w.Eventually(30*time.Second, func() bool { return w.GH.Queued(repo, p.Number) }, "not enqueued")
	w.GH.Dequeue(repo, p.Number, false)
	w.Deliver("merge_group", "merge_group.destroyed.json", w.queueRef(p))
	w.Eventually(30*time.Second, func() bool {
		all := strings.Join(w.BotComments(81), "\n")
		return strings.Contains(all, "CI failed on PR #") && strings.Contains(all, "removed from the merge queue")
	}, "the removal from the queue was not reported")
}

// The repository allows only merge commits: Warden merges with that method.
func TestSquashNotAllowedMergesWithTheAllowedMethod(t *testing.T) {
	w := withOpenPR(t, 82, "maintenance")
	w.GH.AllowMergeMethods(repo, "merge")
	p := w.Pull()
	w.CheckRun(p, "success")
	w.Eventually(30*time.Second, func() bool { return w.Pull().Merged }, "not merged")
	if got := w.Pull().MergedWith; got != "merge" {
		t.Fatalf("merged with %q, want merge", got)
	}
}

// A required check that never reported on the head holds the merge.
func TestRequiredCheckMissingWaits(t *testing.T) {
	w := withOpenPR(t, 83, "maintenance")
	w.GH.AddRule(repo, "required_status_checks", map[string]any{"strict_required_status_checks_policy": false,
		"required_status_checks": []any{map[string]any{"context": "integration"}}})
	p := w.Pull()
	w.CheckRun(p, "success")
	w.Eventually(30*time.Second, w.statusSays(83, `Required status check "integration" is expected.`), "the wait is not said")
	w.holds(t, 2*time.Second)
}

// Only skipped checks on the head: not CI, the PR waits and says so.
func TestOnlySkippedChecksWait(t *testing.T) {
	w := withOpenPR(t, 84, "maintenance")
	p := w.Pull()
	w.CheckRun(p, "skipped")
	w.Eventually(30*time.Second, w.statusSays(84, "skipped or neutral alone is not CI"), "the wait is not said")
	w.holds(t, 2*time.Second)
}
