package chaos

import (
	"bytes"
	"fmt"
	"os/exec"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/world"
)

// followupPoint is where a follow-up's worker dies: arm holds the first
// request past that point.
type followupPoint struct {
	name string
	arm  func(c *prCase) func() bool
}

// Each point is one PR's follow-up (a review with two inline comments),
// in the order the follow-up passes them.
var followupPoints = []followupPoint{
	// Right after the feedback went in flight: the review's comments are
	// read next.
	{"after the drain", func(c *prCase) func() bool { return c.s.gh.Arm("GET", c.path("reviews/")) }},
	{"after the commit, before the push", func(c *prCase) func() bool {
		return c.s.gh.ArmMatch("POST", "/git/"+world.Repo+".git/git-receive-pack", func(_ string, body []byte) bool {
			return bytes.Contains(body, []byte("refs/heads/"+c.pr.Head))
		})
	}},
	// The push landed: the warden/mode status on the new head comes next,
	// then the outcome comment and the replies.
	{"after the push", func(c *prCase) func() bool {
		return c.s.gh.ArmMatch("POST", "/repos/"+world.Repo+"/statuses/", func(p string, _ []byte) bool {
			sha := path.Base(p)
			return sha != c.pr.HeadSHA && sha == branchHead(c)
		})
	}},
	{"before the replies", func(c *prCase) func() bool { return c.s.gh.Arm("POST", c.path("comments")) }},
	{"between the two replies", func(c *prCase) func() bool { return c.s.gh.ArmNth("POST", c.path("comments"), 2) }},
	{"after a reply, before it is recorded", func(c *prCase) func() bool { return c.s.gh.ArmAnswer("POST", c.path("comments")) }},
}

// branchHead is the case's branch head in the repository, "" when unread.
func branchHead(c *prCase) string {
	out, _ := exec.Command("git", "--git-dir="+c.s.w.Bare, "rev-parse", "--verify", "refs/heads/"+c.pr.Head).Output()
	return strings.TrimSpace(string(out))
}

const firstFollowupIssue = 301

// One worker runs a follow-up on each of six PRs, each held at another
// point between taking the review's feedback and recording its answers,
// and is killed with SIGKILL; a new worker starts on the same data
// directory. Every review is then answered exactly once: one follow-up
// commit, one reply in each inline thread naming it, one outcome comment,
// every piece of feedback in the prompt; and no PR stays busy: a green
// check merges each with one merge call, completing its issue.
func TestSIGKILLInFollowupAnswersEveryFeedbackOnce(t *testing.T) {
	t.Parallel()
	names := make([]string, len(followupPoints))
	for i, fp := range followupPoints {
		names[i] = fp.name
	}
	s, cs := newPRWorld(t, firstFollowupIssue, names...)
	reached := make([]func() bool, len(cs))
	for i, c := range cs {
		reached[i] = followupPoints[i].arm(c)
		c.review()
	}
	s.kill(cs, reached)
	start := time.Now()
	for _, c := range cs {
		waitFor(t, 4*time.Minute, func() bool { return answered(c) }, s.wk.Logs, "case "+c.name+": not every inline thread answered after the kill")
	}
	t.Logf("every follow-up recovered %s after the kill", time.Since(start).Round(time.Second))
	time.Sleep(3 * time.Second) // a second answer or commit would come now
	for _, c := range cs {
		checkAnsweredOnce(t, c)
	}
	for _, c := range cs {
		c.green()
	}
	for _, c := range cs {
		checkMergedOnce(t, c)
	}
}

// answered: every inline thread of the case has Warden's reply.
func answered(c *prCase) bool {
	r := c.replies()
	for _, id := range c.ids {
		if len(r[id]) == 0 {
			return false
		}
	}
	return true
}

// checkAnsweredOnce: one follow-up commit, one reply per thread naming it,
// one outcome comment on the PR, no feedback missing from any prompt.
func checkAnsweredOnce(t *testing.T, c *prCase) {
	t.Helper()
	if n := c.commitsAfter(); n != 1 {
		t.Errorf("case %q: %d follow-up commits, want 1", c.name, n)
	}
	head := c.pull().HeadSHA
	for _, id := range c.ids {
		want := fmt.Sprintf("Addressed in %s.\n\n<!-- warden:reply %d -->", head[:7], id) // the mark names the comment answered
		if r := c.replies()[id]; len(r) != 1 || r[0] != want {
			t.Errorf("case %q: thread %d answered %q, want once, naming %s", c.name, id, r, head[:7])
		}
	}
	if n := c.outcomesOnPR(); n != 1 {
		t.Errorf("case %q: %d outcome comments on the PR, want 1", c.name, n)
	}
	prompts := c.followups()
	if len(prompts) == 0 {
		t.Errorf("case %q: no follow-up prompt", c.name)
	}
	for _, p := range prompts {
		for _, want := range []string{reviewBody, inlineOne, inlineTwo} {
			if !strings.Contains(p, want) {
				t.Errorf("case %q: a follow-up prompt lacks %q", c.name, want)
			}
		}
	}
}

// checkMergedOnce: the PR (green) merges with one merge call, and its issue
// ends completed with its one outcome record.
func checkMergedOnce(t *testing.T, c *prCase) {
	t.Helper()
	waitFor(t, 2*time.Minute, func() bool { return c.pull().Merged }, c.s.wk.Logs, "case "+c.name+": the PR was never merged: left busy")
	// A merge whose answer the killed worker never read is settled by the
	// recovered evaluation (this world sends no pull_request.closed), which
	// asynq hands back once the dead worker's lease lapsed.
	waitFor(t, 3*time.Minute, func() bool { return c.s.w.HasLabel(c.n, "warden:completed") }, c.s.wk.Logs, "case "+c.name+": issue not labelled completed")
	if n := c.mergeCalls(); n != 1 {
		t.Errorf("case %q: %d merge calls, want 1", c.name, n)
	}
	if rs := c.s.w.Records(c.n); len(rs) != 1 || rs[0].Outcome != outcome.Completed {
		t.Errorf("case %q: issue outcome records %+v, want one completed", c.name, rs)
	}
}
