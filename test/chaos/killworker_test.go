package chaos

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// killConfig makes tests cheap (a grep that passes once Add adds) and makes
// issue 203's test run last 5 s, long enough to kill a worker inside it.
// The grep fails on the base and is judged by its exit status alone, which
// a baseline would block on (issue #32): this suite turns it off.
const killConfig = `test: >-
  case "$(pwd)" in *-203) sleep 5;; esac; grep -q 'return a + b' calc/calc.go
max_fix_attempts: 2
baseline: false
`

// killSuite is the state one kill needs: the world, where a worker is held
// and the data directory every worker shares.
type killSuite struct {
	t     *testing.T
	w     *world.World
	model *modelHolds
	gh    *holdProxy
	data  string
}

// killPoint arms a hold inside one stage of issue n on worker wk and
// returns a predicate that holds once wk is inside that stage.
type killPoint struct {
	stage string
	arm   func(s *killSuite, n int, wk *harness.Bot) func() bool
}

func modelHold(stage string) func(*killSuite, int, *harness.Bot) func() bool {
	return func(s *killSuite, n int, _ *harness.Bot) func() bool { return s.model.Arm(issueTitle(n), stage) }
}

// One kill inside each stage that does work: the model stages hang on the
// fake model; Test is issue 203's slow test run; Release is held on the
// commit status, after the PR was opened, so a re-run must reuse it.
var killPoints = []killPoint{
	{"Plan", modelHold("plan")},
	{"Implement", modelHold("implement")},
	{"Test", func(_ *killSuite, _ int, wk *harness.Bot) func() bool {
		return func() bool { return logged(wk.Logs(), "stage finished", `"stage":"Implement"`) }
	}},
	{"Review", modelHold("review")},
	{"Release", func(s *killSuite, _ int, _ *harness.Bot) func() bool {
		return s.gh.Arm("POST", "/repos/"+world.Repo+"/statuses/")
	}},
}

const firstIssue = 201

// Five labelled issues, five worker processes killed with SIGKILL, each
// inside a different stage of a different issue, a new worker started on
// the same data directory after each kill. asynq hands each killed task
// back once its lease has expired; every issue then ends Completed with
// exactly one PR, one outcome comment and one status comment, and no
// worktree outlives its task.
func TestSIGKILLMidStageLosesAndDoublesNothing(t *testing.T) {
	t.Parallel()
	s := &killSuite{t: t, gh: newHoldProxy(t), data: t.TempDir()}
	s.w = world.New(t, world.WithConfig(killConfig), s.gh.Option(), func(env map[string]string) { env["WARDEN_ROLE"] = "web" })
	s.model = newModelHolds(s.w.Model)
	start := time.Now()
	for i, kp := range killPoints {
		s.kill(i, kp)
	}
	t.Logf("%d workers killed in %s", len(killPoints), time.Since(start).Round(time.Second))
	final := startWorker(t, s.w, s.data, "5")
	s.expectSwept(final)
	waitFor(t, 4*time.Minute, func() bool { return s.allReported() }, final.Logs, "not every killed task was recovered and reported")
	t.Logf("every issue reported %s after the first kill", time.Since(start).Round(time.Second))
	s.checkExactlyOnce()
	s.checkNoWorktrees(final)
}

// kill runs one cycle: a fresh worker (which must sweep the worktree the
// previous one left), a new labelled issue, the hold, SIGKILL.
func (s *killSuite) kill(i int, kp killPoint) {
	t, n := s.t, firstIssue+i
	wk := startWorker(t, s.w, s.data, "1")
	if i > 0 {
		s.expectSwept(wk)
	}
	reached := kp.arm(s, n, wk)
	if code := s.w.Label(n, issueTitle(n), issueBody, "warden:maintenance", "alice"); code != 202 {
		t.Fatalf("label issue %d: HTTP %d, want 202", n, code)
	}
	waitFor(t, 60*time.Second, reached, wk.Logs, fmt.Sprintf("issue %d never reached %s", n, kp.stage))
	wk.Kill()
	if kp.stage == "Release" && len(s.pulls(n)) != 1 {
		t.Fatalf("killed in Release of issue %d before its PR was opened", n)
	}
	if kp.stage == "Test" && logged(wk.Logs(), "stage finished", `"stage":"Test"`) {
		t.Fatalf("issue %d's Test stage finished before the kill", n)
	}
}

// expectSwept checks that a worker's start removed exactly the one worktree
// its killed predecessor left.
func (s *killSuite) expectSwept(wk *harness.Bot) {
	s.t.Helper()
	if !logged(wk.Logs(), "swept worktrees left by a previous process", `"count":1`) {
		s.t.Fatalf("a worker started after a kill did not sweep one worktree:\n%s", world.Tail(wk.Logs(), 4000))
	}
}

func (s *killSuite) allReported() bool {
	for i := range killPoints {
		if len(s.w.Records(firstIssue+i)) == 0 {
			return false
		}
	}
	return true
}

// pulls are the PRs whose branch belongs to issue n.
func (s *killSuite) pulls(n int) []string {
	var heads []string
	for _, p := range s.w.GH.Pulls(world.Repo) {
		if strings.HasPrefix(p.Head, fmt.Sprintf("warden/%d-", n)) {
			heads = append(heads, p.Head)
		}
	}
	return heads
}

// checkExactlyOnce: one Completed outcome, one status comment, one PR per
// issue, and no other PR at all.
func (s *killSuite) checkExactlyOnce() {
	t := s.t
	for i, kp := range killPoints {
		n := firstIssue + i
		if rs := s.w.Records(n); len(rs) != 1 || rs[0].Outcome != outcome.Completed {
			t.Errorf("issue %d (killed in %s): outcome records %+v, want one completed", n, kp.stage, rs)
		}
		status := 0
		for _, b := range s.w.BotComments(n) {
			if strings.Contains(b, "<!-- warden:status -->") {
				status++
			}
		}
		if status != 1 {
			t.Errorf("issue %d (killed in %s): %d status comments, want 1", n, kp.stage, status)
		}
		if heads := s.pulls(n); len(heads) != 1 {
			t.Errorf("issue %d (killed in %s): PRs %v, want one", n, kp.stage, heads)
		}
	}
	if all := s.w.GH.Pulls(world.Repo); len(all) != len(killPoints) {
		t.Errorf("%d PRs in the repository, want %d", len(all), len(killPoints))
	}
}

// checkNoWorktrees: finished tasks removed their own worktrees (a clean
// restart finds nothing to sweep) and the mirror knows only its main one.
func (s *killSuite) checkNoWorktrees(final *harness.Bot) {
	t := s.t
	dir := filepath.Join(s.data, "worktrees")
	waitFor(t, 10*time.Second, func() bool { es, _ := os.ReadDir(dir); return len(es) == 0 }, final.Logs, "worktrees of finished tasks remain in "+dir)
	final.Stop()
	clean := startWorker(t, s.w, s.data, "1")
	if logged(clean.Logs(), "swept worktrees left by a previous process") {
		t.Errorf("a clean restart after every task finished still swept worktrees:\n%s", world.Tail(clean.Logs(), 4000))
	}
	mirror := filepath.Join(s.data, "mirrors", world.Repo+".git")
	out, err := exec.Command("git", "-C", mirror, "worktree", "list", "--porcelain").CombinedOutput()
	if err != nil {
		t.Fatalf("git worktree list in %s: %v\n%s", mirror, err, out)
	}
	// Parked worktrees (kept for the repository's next task) are expected;
	// any other worktree but the main one is a leak.
	parked := strings.Count(string(out), "worktree "+filepath.Join(s.data, "parked")+string(filepath.Separator))
	if n := strings.Count(string(out), "worktree ") - parked; n != 1 {
		t.Errorf("mirror lists %d worktrees besides %d parked, want only the main one:\n%s", n, parked, out)
	}
}
