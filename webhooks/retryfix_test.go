package webhooks

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/jobs"
)

// prComment is a writer's (or anyone's) comment on Warden's PR #12.
func prComment(t *testing.T, body, sender string) []byte {
	return withInstallation(t, fixture(t, "issue_comment.created.json"), func(m map[string]any) {
		is := m["issue"].(map[string]any)
		is["number"], is["body"], is["pull_request"] = 12, prBody, map[string]any{"url": "x"}
		is["user"].(map[string]any)["login"] = "warden-test[bot]"
		m["comment"].(map[string]any)["body"] = body
		m["sender"].(map[string]any)["login"] = sender
	})
}

// #27 also-seen: `/warden fix …` beside `/warden retry` in one comment on a
// held PR is kept and answered by the follow-up the hand-back queues.
func TestRetryAndFixInOneCommentKeepsTheFix(t *testing.T) {
	r, fb := feedbackRig()
	fb.holds[12] = "bob"
	code, _ := r.post(t, "issue_comment", "c1", prComment(t, "/warden retry\n/warden fix add a hint", "alice"), nil)
	if code != http.StatusAccepted || fb.holds[12] != "" {
		t.Fatalf("code %d, hold %q: the branch was not handed back", code, fb.holds[12])
	}
	if len(fb.items) != 1 || fb.items[0].Body != "add a hint" || fb.items[0].Kind != followup.KindComment {
		t.Fatalf("feedback %+v, want the fix kept", fb.items)
	}
	if len(r.q.runs) != 1 || r.q.runs[0].Reason != jobs.ReasonFollowup || r.q.runs[0].PR != 12 {
		t.Fatalf("runs %+v, want one follow-up of PR #12", r.q.runs)
	}
	// The follow-up's data on disk is the repository's, not its name's (#31).
	if r.q.runs[0].RepoID != 186853002 {
		t.Fatalf("follow-up repo_id = %d, want the delivery's repository id", r.q.runs[0].RepoID)
	}
}

// #27 also-seen: the hold is released before the enqueues; a delivery that
// failed after the release is redelivered, finds the branch free and
// still queues the follow-up of the feedback that waited.
func TestRedeliveredRetryQueuesTheWaitingFollowup(t *testing.T) {
	r, fb := feedbackRig()
	fb.holds[12] = "bob"
	fb.items = []followup.Item{{Kind: followup.KindComment, ID: 5, Author: "alice", Body: "rename it"}}
	r.q.fail = errors.New("redis down")
	body := prComment(t, "/warden retry", "alice")
	if code, _ := r.post(t, "issue_comment", "r1", body, nil); code < 500 {
		t.Fatalf("first delivery answered %d, want 5xx so GitHub redelivers", code)
	}
	r.q.fail = nil
	r.post(t, "issue_comment", "r1", body, nil)
	if len(r.q.runs) != 1 || r.q.runs[0].PR != 12 || r.q.runs[0].Reason != jobs.ReasonFollowup {
		t.Fatalf("runs %+v after the redelivery, want the waiting feedback's follow-up", r.q.runs)
	}
}

// #38 (3): a `/warden retry` whose first delivery released the hold and
// then met a 503 while queueing is finished by the redelivery: the PR is
// evaluated again (before, the redelivery saw "not held" and queued
// nothing, and a green PR sat).
func TestRedeliveredRetryHandsTheBranchBack(t *testing.T) {
	r, fb := feedbackRig()
	fb.holds[12] = "bob"
	r.q.fail = errors.New("redis down")
	body := prComment(t, "/warden retry", "alice")
	if code, _ := r.post(t, "issue_comment", "r2", body, nil); code < 500 {
		t.Fatalf("first delivery answered %d, want 5xx so GitHub redelivers", code)
	}
	r.q.fail = nil
	r.q.prs = nil
	r.post(t, "issue_comment", "r2", body, nil)
	if len(r.q.prs) != 1 || r.q.prs[0].PR != 12 {
		t.Fatalf("evaluations %+v after the redelivery, want PR #12 evaluated", r.q.prs)
	}
	if len(r.q.statuses) != 1 || !strings.Contains(r.q.statuses[0].Note, "takes this branch back") {
		t.Fatalf("replies %+v, want the hand-back said once", r.q.statuses)
	}
	if owed, _ := fb.HandBackOwed(context.Background(), "", 12); owed {
		t.Fatal("the hand-back stays owed after it was queued")
	}
}
