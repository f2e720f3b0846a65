package chaos

import (
	"fmt"
	"maps"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// prConfig's test passes on the first attempt's fix and on the
// follow-up's (both keep a + b); no baseline, as in killConfig.
const prConfig = `test: grep -q 'a + b' calc/calc.go
max_fix_attempts: 2
baseline: false
`

// followupMarker tells a follow-up prompt from the first attempt's.
const followupMarker = "which you opened for this issue, needs a follow-up"

// followBlock is the follow-up's change, applicable on the PR's head (the
// first attempt's fix) and only there: a second follow-up commit on top of
// the first one would not apply.
const followBlock = "calc/calc.go\n<<<<<<< SEARCH\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n=======\n// Add returns a + b.\nfunc Add(a, b int) int {\n\tsum := a + b\n\treturn sum\n>>>>>>> REPLACE\n"

func followupScript(req fakemodel.Request) fakemodel.Reply {
	if strings.Contains(req.Prompt, followupMarker) {
		return world.Text(followBlock)
	}
	return world.HappyScript(req)
}

// Feedback the review of every case carries: its body and two inline
// comments, each a thread to answer once.
const (
	reviewBody = "Two small things, please."
	inlineOne  = "Say `a + b` in the doc comment."
	inlineTwo  = "Name the sum before returning it."
)

// prWorld holds several maintenance PRs Warden opened, served by a web
// process and one worker at a time on a shared data directory, with
// GitHub's API and git behind a hold proxy.
type prWorld struct {
	t    *testing.T
	w    *world.World
	gh   *holdProxy
	data string
	wk   *harness.Bot
}

// prCase is one issue's PR in a prWorld and what a test did to it.
type prCase struct {
	s    *prWorld
	name string
	n    int
	pr   fakegithub.Pull // as the first attempt opened it
	ids  []int64         // the inline comments of its review
}

// newPRWorld opens one maintenance PR per name (issues first, first+1, …),
// all at once on one worker.
func newPRWorld(t *testing.T, first int, names ...string) (*prWorld, []*prCase) {
	t.Helper()
	s := &prWorld{t: t, gh: newHoldProxy(t), data: t.TempDir()}
	s.w = world.New(t, world.WithConfig(prConfig), s.gh.Option(), s.gh.GitOption(), func(env map[string]string) {
		env["WARDEN_ROLE"], env["WARDEN_MAX_PER_REPO"] = "web", "16"
	})
	s.w.Model.Script(followupScript)
	s.wk = s.worker()
	cs := make([]*prCase, len(names))
	for i, name := range names {
		cs[i] = &prCase{s: s, name: name, n: first + i}
		if code := s.w.Label(cs[i].n, issueTitle(cs[i].n), issueBody, "warden:maintenance", "alice"); code != 202 {
			t.Fatalf("label issue %d: HTTP %d, want 202", cs[i].n, code)
		}
	}
	for _, c := range cs {
		waitFor(t, 3*time.Minute, func() bool { return len(s.w.Records(c.n)) > 0 }, s.wk.Logs, fmt.Sprintf("issue %d's first attempt never reported", c.n))
		if rs := s.w.Records(c.n); rs[0].Outcome != outcome.Completed {
			t.Fatalf("issue %d's first attempt: %+v", c.n, rs[0])
		}
		c.pr = c.pull()
	}
	return s, cs
}

func (s *prWorld) worker() *harness.Bot {
	env := maps.Clone(s.w.Env)
	env["WARDEN_ROLE"], env["WARDEN_DATA_DIR"], env["WARDEN_CONCURRENCY"] = "worker", s.data, "16"
	return harness.StartBinary(s.t, s.w.Bin, env)
}

// kill waits until every point is reached, SIGKILLs the worker and starts
// another on the same data directory.
func (s *prWorld) kill(cs []*prCase, reached []func() bool) {
	s.t.Helper()
	for i, c := range cs {
		waitFor(s.t, 2*time.Minute, reached[i], s.wk.Logs, fmt.Sprintf("case %q (issue %d) never reached its point", c.name, c.n))
	}
	s.wk.Kill()
	s.wk = s.worker()
}

// pull is the case's PR as GitHub has it now.
func (c *prCase) pull() fakegithub.Pull {
	prefix := fmt.Sprintf("warden/%d-", c.n)
	for _, p := range c.s.w.GH.Pulls(world.Repo) {
		if strings.HasPrefix(p.Head, prefix) {
			return p
		}
	}
	c.s.t.Fatalf("issue %d has no PR", c.n)
	return fakegithub.Pull{}
}

// review delivers what GitHub sends for a changes-requested review with two
// inline comments: the review, then each comment on its own.
func (c *prCase) review() {
	p, gh := c.pr, c.s.w.GH
	rid := gh.AddReview(world.Repo, p.Number, "alice", "CHANGES_REQUESTED", p.HeadSHA)
	hunk := "@@ -3,4 +3,4 @@\n-\treturn a - b\n+\treturn a + b"
	for i, body := range []string{inlineOne, inlineTwo} {
		c.ids = append(c.ids, gh.AddReviewComment(world.Repo, p.Number, rid, "alice", "calc/calc.go", 3+2*i, hunk, body))
	}
	c.deliver("pull_request_review", "pull_request_review.submitted.json", func(m map[string]any) {
		rv := m["review"].(map[string]any)
		rv["id"], rv["state"], rv["body"], rv["commit_id"] = rid, "changes_requested", reviewBody, p.HeadSHA
		rv["user"].(map[string]any)["login"] = "alice"
	})
	for i, body := range []string{inlineOne, inlineTwo} {
		c.deliver("pull_request_review_comment", "pull_request_review_comment.created.json", func(m map[string]any) {
			cm := m["comment"].(map[string]any)
			cm["id"], cm["pull_request_review_id"], cm["path"], cm["line"], cm["original_line"] = c.ids[i], rid, "calc/calc.go", 3+2*i, 3+2*i
			cm["diff_hunk"], cm["body"], cm["commit_id"] = hunk, body, p.HeadSHA
			cm["user"].(map[string]any)["login"] = "alice"
		})
	}
}

// deliver sends a PR event by alice about the PR as it is now.
func (c *prCase) deliver(event, fixture string, mutate func(m map[string]any)) {
	c.s.t.Helper()
	p := c.pull()
	code := c.s.w.Deliver(event, fixture, func(m map[string]any) {
		pr := m["pull_request"].(map[string]any)
		pr["number"], pr["body"], pr["state"] = p.Number, p.Body, "open"
		pr["head"].(map[string]any)["ref"], pr["head"].(map[string]any)["sha"] = p.Head, p.HeadSHA
		pr["user"].(map[string]any)["login"] = fakegithub.BotLogin
		m["sender"].(map[string]any)["login"] = "alice"
		mutate(m)
	})
	if code/100 != 2 {
		c.s.t.Fatalf("%s delivery for issue %d: HTTP %d", event, c.n, code)
	}
}

// humanPush is a maintainer's commit on the PR's branch, announced; it
// returns the new head.
func (c *prCase) humanPush() string {
	c.s.t.Helper()
	gitfixture.Commit(c.s.t, c.s.w.Bare, c.pr.Head, map[string]string{"NOTES.md": "a maintainer's push\n"})
	c.deliver("pull_request", "pull_request.synchronize.json", func(map[string]any) {})
	return c.pull().HeadSHA
}

// green marks the PR's current head green and says so, as CI would.
func (c *prCase) green() {
	c.s.t.Helper()
	if code := c.s.w.CheckRun(c.pull(), "success"); code/100 != 2 {
		c.s.t.Fatalf("check_run delivery for issue %d: HTTP %d", c.n, code)
	}
}

// path is an API path under the case's PR.
func (c *prCase) path(rest string) string {
	return fmt.Sprintf("/repos/%s/pulls/%d/%s", world.Repo, c.pr.Number, rest)
}

// mergeCalls counts the merge calls that reached GitHub.
func (c *prCase) mergeCalls() int { return c.s.w.GH.CountCalls("PUT", c.path("merge")) }

// replies are Warden's answers in inline threads, by the comment answered.
func (c *prCase) replies() map[int64][]string {
	out := map[int64][]string{}
	for _, rc := range c.s.w.GH.ReviewComments(world.Repo, c.pr.Number) {
		if rc.Author == fakegithub.BotLogin && rc.InReplyTo != 0 {
			out[rc.InReplyTo] = append(out[rc.InReplyTo], rc.Body)
		}
	}
	return out
}

// followups are the follow-up prompts of the case the model received.
func (c *prCase) followups() []string {
	var out []string
	for _, r := range c.s.w.Model.Requests() {
		if strings.Contains(r.Prompt, followupMarker) && strings.Contains(r.Prompt, issueTitle(c.n)) {
			out = append(out, r.Prompt)
		}
	}
	return out
}

// outcomesOnPR are Warden's outcome comments on the PR's conversation.
func (c *prCase) outcomesOnPR() int {
	n := 0
	for _, b := range c.s.w.BotComments(c.pr.Number) {
		if strings.Contains(b, "<!-- warden:outcome") {
			n++
		}
	}
	return n
}

// commitsAfter counts the commits on the PR's branch after the first
// attempt's head.
func (c *prCase) commitsAfter() int {
	c.s.t.Helper()
	out, err := exec.Command("git", "--git-dir="+c.s.w.Bare, "rev-list", "--count", c.pr.HeadSHA+".."+c.pr.Head).Output()
	if err != nil {
		c.s.t.Fatalf("rev-list: %v", err)
	}
	var n int
	fmt.Sscan(strings.TrimSpace(string(out)), &n)
	return n
}
