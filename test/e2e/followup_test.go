package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/fakemodel"
)

// followupMarker tells a follow-up prompt from the first attempt's.
const followupMarker = "which you opened for this issue, needs a follow-up"

// followBlock is the follow-up's change to the fixed calc.Add.
const followBlock = "calc/calc.go\n<<<<<<< SEARCH\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n=======\n// Add returns a + b.\nfunc Add(a, b int) int {\n\tsum := a + b\n\treturn sum\n>>>>>>> REPLACE\n"

// followupScript answers the first attempt as the happy path does and every
// follow-up with followBlock.
func followupScript(req fakemodel.Request) fakemodel.Reply {
	if strings.Contains(req.Prompt, followupMarker) {
		return text(followBlock)
	}
	return happyScript(req)
}

// followups are the follow-up prompts the model received.
func (w *world) followups() []fakemodel.Request {
	var out []fakemodel.Request
	for _, r := range w.Model.Requests() {
		if strings.Contains(r.Prompt, followupMarker) {
			out = append(out, r)
		}
	}
	return out
}

// inline is one inline comment of a review.
type inline struct {
	path, hunk, body string
	line             int
}

// prPayload points a PR-shaped payload object at p, authored by the App.
func prPayload(pr map[string]any, p fakegithub.Pull) {
	pr["number"], pr["body"], pr["state"] = p.Number, p.Body, "open"
	pr["head"].(map[string]any)["ref"], pr["head"].(map[string]any)["sha"] = p.Head, p.HeadSHA
	pr["user"].(map[string]any)["login"] = fakegithub.BotLogin
}

// reviewWith delivers what GitHub sends for a review with inline comments:
// pull_request_review.submitted, then pull_request_review_comment.created
// for each comment. It returns the comments' ids.
func (w *world) reviewWith(p fakegithub.Pull, user, state, body string, cs ...inline) []int64 {
	w.T.Helper()
	rid := w.GH.AddReview(repo, p.Number, user, strings.ToUpper(state), p.HeadSHA)
	var ids []int64
	for _, c := range cs {
		ids = append(ids, w.GH.AddReviewComment(repo, p.Number, rid, user, c.path, c.line, c.hunk, c.body))
	}
	w.Deliver("pull_request_review", "pull_request_review.submitted.json", func(m map[string]any) {
		prPayload(m["pull_request"].(map[string]any), p)
		rv := m["review"].(map[string]any)
		rv["id"], rv["state"], rv["body"], rv["commit_id"] = rid, state, body, p.HeadSHA
		rv["user"].(map[string]any)["login"] = user
		m["sender"].(map[string]any)["login"] = user
	})
	for i, c := range cs {
		w.Deliver("pull_request_review_comment", "pull_request_review_comment.created.json", func(m map[string]any) {
			prPayload(m["pull_request"].(map[string]any), p)
			cm := m["comment"].(map[string]any)
			cm["id"], cm["pull_request_review_id"], cm["path"], cm["line"], cm["original_line"] = ids[i], rid, c.path, c.line, c.line
			cm["diff_hunk"], cm["body"], cm["commit_id"] = c.hunk, c.body, p.HeadSHA
			cm["user"].(map[string]any)["login"] = user
			m["sender"].(map[string]any)["login"] = user
		})
	}
	return ids
}

// prComment delivers issue_comment.created on the PR's conversation.
func (w *world) prComment(p fakegithub.Pull, body, sender string) {
	w.T.Helper()
	w.Deliver("issue_comment", "issue_comment.created.json", func(m map[string]any) {
		is := m["issue"].(map[string]any)
		is["number"], is["body"], is["pull_request"] = p.Number, p.Body, map[string]any{"url": "x"}
		is["user"].(map[string]any)["login"] = fakegithub.BotLogin
		m["comment"].(map[string]any)["body"] = body
		m["comment"].(map[string]any)["id"] = time.Now().UnixNano()
		m["comment"].(map[string]any)["created_at"] = time.Now().UTC().Format(time.RFC3339) // after the pushes it answers
		m["sender"].(map[string]any)["login"] = sender
	})
}

// commitsSince counts the commits on the PR's branch after sha.
func (w *world) commitsSince(branch, sha string) int {
	w.T.Helper()
	out, err := exec.Command("git", "--git-dir="+w.Bare, "rev-list", "--count", sha+".."+branch).Output()
	if err != nil {
		w.T.Fatalf("rev-list: %v", err)
	}
	n := 0
	for _, c := range strings.TrimSpace(string(out)) {
		n = n*10 + int(c-'0')
	}
	return n
}

// replies are the App's answers in inline threads, by the comment they answer.
func (w *world) replies(p fakegithub.Pull) map[int64][]string {
	out := map[int64][]string{}
	for _, c := range w.GH.ReviewComments(repo, p.Number) {
		if c.Author == fakegithub.BotLogin && c.InReplyTo != 0 {
			out[c.InReplyTo] = append(out[c.InReplyTo], c.Body)
		}
	}
	return out
}

// outcomesOn counts Warden's outcome comments on the PR's conversation.
func (w *world) outcomesOn(p fakegithub.Pull) []string {
	var out []string
	for _, b := range w.BotComments(p.Number) {
		if strings.Contains(b, "<!-- warden:outcome") {
			out = append(out, b)
		}
	}
	return out
}

// A writer's changes-requested review with two inline comments makes one
// follow-up: one commit on the same branch (no new PR), a reply in each
// thread and one outcome comment on the PR. The prompt carries each
// comment's words, file, line and hunk and the PR's diff against its base.
func TestReviewWithTwoInlineCommentsMakesOneFollowupCommit(t *testing.T) {
	w := withOpenPR(t, 80, "maintenance")
	w.Model.Script(followupScript)
	p := w.Pull()
	ids := w.reviewWith(p, "alice", "changes_requested", "Two small things, please.",
		inline{"calc/calc.go", "@@ -1,6 +1,6 @@\n // Add returns the sum of a and b.", "Say `a + b` in the doc comment.", 3},
		inline{"calc/calc.go", "@@ -3,4 +3,4 @@\n-\treturn a - b\n+\treturn a + b", "Name the sum before returning it.", 5})
	w.Eventually(90*time.Second, func() bool { return len(w.replies(p)) == 2 }, "not both inline threads answered")
	time.Sleep(2 * time.Second) // late copies of the comments must not start another follow-up
	if n := w.commitsSince(p.Head, p.HeadSHA); n != 1 {
		t.Fatalf("%d commits pushed after the review, want 1", n)
	}
	if got := w.Pull(); got.Head != p.Head || got.HeadSHA == p.HeadSHA {
		t.Fatalf("PR after follow-up: %+v (was %+v)", got, p)
	}
	for _, id := range ids {
		if r := w.replies(p)[id]; len(r) != 1 || !strings.HasPrefix(r[0], "Addressed in ") {
			t.Fatalf("thread %d answered %q", id, r)
		}
	}
	if o := w.outcomesOn(p); len(o) != 1 || !strings.Contains(o[0], "2 inline comments") {
		t.Fatalf("outcome comments on the PR: %q", o)
	}
	fu := w.followups()
	if len(fu) != 1 {
		t.Fatalf("%d follow-up prompts, want 1", len(fu))
	}
	for _, want := range []string{"Two small things, please.", "Say `a + b` in the doc comment.", "Name the sum before returning it.",
		"calc/calc.go line 3", "calc/calc.go line 5", "-\treturn a - b\n+\treturn a + b", "+++ b/calc/calc.go"} {
		if !strings.Contains(fu[0].Prompt, want) {
			t.Fatalf("follow-up prompt lacks %q:\n%s", want, fu[0].Prompt)
		}
	}
}

// A review from a user who may only triage is neither an instruction nor
// context: nothing runs, nothing is pushed, nobody is answered.
func TestReviewFromTriageUserDoesNothing(t *testing.T) {
	w := withOpenPR(t, 81, "maintenance")
	w.Model.Script(followupScript)
	p := w.Pull()
	before := len(w.Model.Requests())
	w.reviewWith(p, "trudy", "changes_requested", "Rewrite it all.", inline{"calc/calc.go", "@@ -1 +1 @@", "Delete this.", 5})
	w.prComment(p, "@warden-test please delete calc.go", "trudy")
	time.Sleep(3 * time.Second)
	if n := len(w.Model.Requests()); n != before {
		t.Fatalf("%d model calls after a triager's review", n-before)
	}
	if got := w.Pull(); got.HeadSHA != p.HeadSHA || len(w.replies(p)) != 0 || len(w.outcomesOn(p)) != 0 {
		t.Fatalf("a triager's review changed the PR: %+v, replies %v", got, w.replies(p))
	}
}
