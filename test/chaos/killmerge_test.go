package chaos

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/world"
)

// mergePoint is where a merge evaluation's worker dies: arm holds the
// first request past that point (a green check triggers the evaluation);
// after is what happens once the new worker runs; check judges the end.
type mergePoint struct {
	name  string
	arm   func(c *prCase) func() bool
	after func(c *prCase)
	check func(t *testing.T, c *prCase)
}

var mergePoints = []mergePoint{
	// Decided to merge, the call never reached GitHub: the recovered
	// evaluation merges, once.
	{"merge call lost", func(c *prCase) func() bool { return c.s.gh.Arm("PUT", c.path("merge")) }, nil, checkMergedOnce},
	// GitHub merged, the worker never heard: no second call; the issue
	// is settled from the merged PR.
	{"merge answer lost", func(c *prCase) func() bool { return c.s.gh.ArmAnswer("PUT", c.path("merge")) }, nil, checkMergedOnce},
	// Decided to merge, then a maintainer pushed to the branch (with green
	// CI) while no worker lived: that head is never merged.
	{"maintainer pushed meanwhile", func(c *prCase) func() bool { return c.s.gh.Arm("PUT", c.path("merge")) }, func(c *prCase) {
		c.humanPush()
		c.green()
	}, checkHeldNotMerged},
	// Killed mid-evaluation, holding the PR's lease: the next event waits
	// for the lease to lapse instead of dropping the evaluation, and the
	// PR merges once.
	{"holding the PR's lease", func(c *prCase) func() bool {
		// The head query (one GraphQL request) reads the head's CI.
		return c.s.gh.ArmMatch("POST", "/graphql", func(_ string, body []byte) bool { return bytes.Contains(body, []byte(c.pr.HeadSHA)) })
	}, func(c *prCase) { c.green() }, checkLeaseLapsed},
}

const firstMergeIssue = 401

// One worker evaluates four green maintenance PRs, each held at another
// point around the merge call, and is killed with SIGKILL; a new worker
// starts on the same data directory. Each PR then merges exactly once
// (or, held by a maintainer's push, not at all) and its issue is labelled.
func TestSIGKILLAroundMergeMergesOnceAndNeverAHeldHead(t *testing.T) {
	t.Parallel()
	names := make([]string, len(mergePoints))
	for i, mp := range mergePoints {
		names[i] = mp.name
	}
	s, cs := newPRWorld(t, firstMergeIssue, names...)
	reached := make([]func() bool, len(cs))
	for i, c := range cs {
		reached[i] = mergePoints[i].arm(c)
		c.green()
	}
	s.kill(cs, reached)
	for i, c := range cs {
		if mergePoints[i].after != nil {
			mergePoints[i].after(c)
		}
	}
	for i, c := range cs {
		mergePoints[i].check(t, c)
	}
}

// checkHeldNotMerged: the maintainer's head stays unmerged and untouched
// once the killed evaluation came back and the green check was evaluated.
func checkHeldNotMerged(t *testing.T, c *prCase) {
	t.Helper()
	head := c.pull().HeadSHA
	// The killed evaluation (of the check event on Warden's head, unless
	// the look after the PR's opening ran late) comes back in the same
	// recovery as the cases checked before this one.
	pr := fmt.Sprintf(`"pr":%d`, c.pr.Number)
	judged := func() bool {
		logs := c.s.wk.Logs()
		return logged(logs, "check event for an old head; ignored", pr) || logged(logs, "branch held after a push by someone else; not touching it", pr)
	}
	waitFor(t, 3*time.Minute, judged, c.s.wk.Logs, "case "+c.name+": the PR was never evaluated after the kill")
	time.Sleep(3 * time.Second) // whatever else is queued for the PR runs by now
	p := c.pull()
	if p.Merged || p.HeadSHA != head || c.mergeCalls() != 0 {
		t.Errorf("case %q: a held head was merged or changed: %+v, %d merge calls", c.name, p, c.mergeCalls())
	}
	if !c.s.w.HasLabel(c.n, "warden:pr-open") {
		t.Errorf("case %q: issue labels %v, want warden:pr-open", c.name, c.s.w.GH.Labels(world.Repo, c.n))
	}
	notice := strings.Count(strings.Join(c.s.w.BotComments(c.pr.Number), "\n"), "so Warden stops changing it")
	if notice != 1 {
		t.Errorf("case %q: %d hold notices on the PR, want 1", c.name, notice)
	}
}

// checkLeaseLapsed: an event after the kill found the dead worker's lease
// and waited for it; the PR then merged once.
func checkLeaseLapsed(t *testing.T, c *prCase) {
	t.Helper()
	checkMergedOnce(t, c)
	if !logged(c.s.wk.Logs(), "PR evaluated or pushed by another worker; evaluating after it", fmt.Sprintf(`"pr":%d`, c.pr.Number)) {
		t.Errorf("case %q: no evaluation found the killed worker's lease: the kill did not test it", c.name)
	}
}
