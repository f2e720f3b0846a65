package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/world"
)

// followupReply is the follow-up's edit of the fixed calc.Add.
const followupReply = "calc/calc.go\n<<<<<<< SEARCH\n\treturn a + b\n=======\n\tsum := a + b\n\treturn sum\n>>>>>>> REPLACE\n"

func followupOrHappy(req fakemodel.Request) fakemodel.Reply {
	if strings.Contains(req.Prompt, "needs a follow-up") {
		return world.Text(followupReply)
	}
	return world.HappyScript(req)
}

// pullOf finds issue n's PR.
func pullOf(w *world.World, n int) (fakegithub.Pull, bool) {
	for _, p := range w.GH.Pulls(world.Repo) {
		if strings.HasPrefix(p.Head, fmt.Sprintf("warden/%d-", n)) {
			return p, true
		}
	}
	return fakegithub.Pull{}, false
}

// callAt is when the fake GitHub answered the first call matching method
// and path at or after t0 with a 2xx status.
func callAt(w *world.World, t0 time.Time, method, path string) (time.Time, bool) {
	for _, c := range w.GH.Calls() {
		if !c.Time.Before(t0) && c.Method == method && c.Path == path && c.Status < 300 {
			return c.Time, true
		}
	}
	return time.Time{}, false
}

// firstSample labels a new issue and returns how long until its PR was
// opened (the POST that created it answered), and the PR.
func firstSample(b *testing.B, w *world.World) (time.Duration, fakegithub.Pull, int) {
	n := nextIssue()
	t0 := label(w, n)
	var p fakegithub.Pull
	w.Eventually(90*time.Second, func() bool { var ok bool; p, ok = pullOf(w, n); return ok }, "no PR")
	t1, _ := callAt(w, t0, "POST", "/repos/"+world.Repo+"/pulls")
	finished(w, 90*time.Second, "completed", n)
	return t1.Sub(t0), p, n
}

// reviewSample sends a writer's changes-requested review with two inline
// comments and returns how long until the follow-up's commit was pushed
// (the warden/mode status on the new head answered) and how many GitHub
// calls the follow-up made, replies and outcome comment included.
func reviewSample(b *testing.B, w *world.World, p fakegithub.Pull) (time.Duration, int) {
	rid := w.GH.AddReview(world.Repo, p.Number, "alice", "CHANGES_REQUESTED", p.HeadSHA)
	c1 := w.GH.AddReviewComment(world.Repo, p.Number, rid, "alice", "calc/calc.go", 3, "@@ -1,6 +1,6 @@", "Name the sum.")
	c2 := w.GH.AddReviewComment(world.Repo, p.Number, rid, "alice", "calc/calc.go", 5, "@@ -3,4 +3,4 @@", "Return it after.")
	pr := func(m map[string]any) {
		x := m["pull_request"].(map[string]any)
		x["number"], x["body"], x["state"] = p.Number, p.Body, "open"
		x["head"].(map[string]any)["ref"], x["head"].(map[string]any)["sha"] = p.Head, p.HeadSHA
		x["user"].(map[string]any)["login"] = fakegithub.BotLogin
		m["sender"].(map[string]any)["login"] = "alice"
	}
	t0 := time.Now()
	w.Deliver("pull_request_review", "pull_request_review.submitted.json", func(m map[string]any) {
		pr(m)
		rv := m["review"].(map[string]any)
		rv["id"], rv["state"], rv["body"], rv["commit_id"] = rid, "changes_requested", "Two things.", p.HeadSHA
		rv["user"].(map[string]any)["login"] = "alice"
	})
	for _, id := range []int64{c1, c2} {
		w.Deliver("pull_request_review_comment", "pull_request_review_comment.created.json", func(m map[string]any) {
			pr(m)
			cm := m["comment"].(map[string]any)
			cm["id"], cm["pull_request_review_id"], cm["body"] = id, rid, "see above"
			cm["user"].(map[string]any)["login"] = "alice"
		})
	}
	replies := func() int {
		n := 0
		for _, c := range w.GH.ReviewComments(world.Repo, p.Number) {
			if c.InReplyTo != 0 {
				n++
			}
		}
		return n
	}
	w.Eventually(90*time.Second, func() bool { return replies() == 2 && outcomeOnPR(w, p.Number) }, "follow-up did not finish")
	time.Sleep(300 * time.Millisecond) // the task's last calls
	var head string
	for _, q := range w.GH.Pulls(world.Repo) {
		if q.Number == p.Number {
			head = q.HeadSHA
		}
	}
	t1, ok := callAt(w, t0, "POST", "/repos/"+world.Repo+"/statuses/"+head)
	if !ok || head == p.HeadSHA {
		b.Fatalf("no follow-up push seen (head %s)", head)
	}
	calls := 0
	for _, c := range w.GH.Calls() {
		if !c.Time.Before(t0) {
			calls++
		}
	}
	return t1.Sub(t0), calls
}

func outcomeOnPR(w *world.World, pr int) bool {
	for _, c := range w.GH.Comments(world.Repo, pr) {
		if strings.Contains(c.Body, "<!-- warden:outcome") {
			return true
		}
	}
	return false
}

// BenchmarkFollowupVsFirstAttempt: a writer's changes-requested review with
// two inline comments until the follow-up's commit is pushed, against
// label until the PR is opened, in the same world with the instant fake
// model; samples alternate, each on an idle worker. It also counts the
// GitHub calls of each follow-up (from the review's delivery to its
// outcome comment: permission checks, PR, review comments, status comment,
// warden/mode, two replies, outcome).
func BenchmarkFollowupVsFirstAttempt(b *testing.B) {
	w := world.New(b, nil, concurrencyOpt(2))
	w.Model.Script(followupOrHappy)
	_, p, _ := firstSample(b, w) // warm: the mirror is cloned
	reviewSample(b, w, p)
	first := make([]time.Duration, 0, b.N)
	follow := make([]time.Duration, 0, b.N)
	calls := 0
	b.ResetTimer()
	for range b.N {
		d, p, _ := firstSample(b, w)
		first = append(first, d)
		f, n := reviewSample(b, w, p)
		follow = append(follow, f)
		calls += n
	}
	b.StopTimer()
	b.ReportMetric(ms(pct(follow, 0.5)), "followup-p50-ms")
	b.ReportMetric(ms(pct(follow, 0.99)), "followup-p99-ms")
	b.ReportMetric(ms(pct(first, 0.5)), "first-p50-ms")
	b.ReportMetric(ms(pct(first, 0.99)), "first-p99-ms")
	b.ReportMetric(ms(pct(follow, 0.5))/max(ms(pct(first, 0.5)), 0.001), "p50-ratio")
	b.ReportMetric(ms(pct(follow, 0.99))/max(ms(pct(first, 0.99)), 0.001), "p99-ratio")
	b.ReportMetric(float64(calls)/float64(b.N), "github-calls/followup")
}
