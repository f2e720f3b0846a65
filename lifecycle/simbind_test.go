package lifecycle

import (
	"context"
	"fmt"
	"net/http"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/harness"
)

// The interleaving test's native auto-merge and the faults that reach
// Warden's "already done" marks (#38): two thirds of the merge-queue seeds'
// repositories allow auto-merge and their queue refuses Warden's PR (the
// last pusher may not approve), so Warden enables auto-merge instead and
// GitHub merges by itself once the head is green; a hold or feedback must
// take that back. Red heads sometimes meet an issue read GitHub keeps
// rate-limiting, which fails the CI report: the next evaluation of the
// same head must still report it.

// simExtra is a seed's state for simbind_test.go and simlease_test.go.
type simExtra struct {
	autoMode    bool // the repository allows auto-merge; the queue refuses the PR
	leaseMerges int  // merge calls when the evaluation run inside a lost lease merged (-1: none)
	// lastHeld, lastBusy: what the last evaluation that ended well saw
	// before it began, or (feedback) before its merge guard.
	lastHeld, lastBusy bool
}

// lastPusher is GitHub's refusal of a queue entry Warden cannot satisfy.
var lastPusher = "Pull request New changes require approval from someone other than " + fakegithub.BotLogin + " because they were the last pusher."

// bindRules sets the seed's auto-merge switches and its PR lease's TTL.
func (s *sim) bindRules() {
	s.x = &simExtra{leaseMerges: -1}
	s.life.Locks = jobs.NewLocks(s.be.RDB, simLeaseTTL) // a lost lease is seen within simLeaseTTL/3
	if !s.queueMode || s.rng.Intn(3) == 0 {
		return
	}
	s.x.autoMode = true
	s.gh.SetAllowAutoMerge(repo, true)
	s.gh.RefuseEnqueue(repo, lastPusher)
	// The first run's head went green and Warden enabled auto-merge: GitHub
	// merges it by itself from now on unless Warden takes that back.
	head := s.head()
	s.gh.SetCheckRun(repo, head, "ci", "completed", "success")
	s.checks[head] = "success"
	err := s.life.PR(context.Background(), jobs.PRPayload{Repo: repo, Installation: inst, PR: s.pr, Action: "checks"})
	s.note("the first run's head %s is green; evaluated (err=%v), auto-merge %v", head[:7], err, s.pull().AutoMerge)
}

// autoMergeStep is GitHub's auto-merge acting on a green head: it must
// never merge behind a hold or feedback the last evaluation saw (that one
// had its turn to take auto-merge back). It reports whether it merged.
func (s *sim) autoMergeStep(ctx context.Context, i int) bool {
	if s.merged || !s.pull().AutoMerge {
		return false
	}
	held, _ := s.store.Held(ctx, repo, s.pr)
	busy, _ := s.store.Busy(ctx, repo, s.pr)
	if !s.gh.AutoMergeNow(repo, s.pr) {
		return false
	}
	s.merged = true
	s.note("%d GitHub's auto-merge merged the PR", i)
	s.count("merged by auto-merge")
	if held != "" && s.x.lastHeld || busy && s.x.lastBusy {
		s.broken = append(s.broken, fmt.Sprintf("GitHub's auto-merge merged the PR while held (%q) or busy (%v), as the last evaluation saw it: that one left auto-merge on", held, busy))
	}
	return true
}

// bindFaults arms the faults of this file for the next evaluation: r is
// faults' draw, past the cases it handles itself.
func (s *sim) bindFaults(i, r int) {
	head := s.head()
	switch {
	case r < 12 && s.checks[head] == "failure":
		// Four secondary rate limits on the issue's read: the client gives up,
		// and the CI report fails before anything of it is done.
		path := fmt.Sprintf("/repos/%s/issues/%d$", repo, s.issue)
		s.gh.FailNext("GET", path, 4, http.StatusForbidden, harness.Fixture(s.t, "github-api/rate-limit-secondary.403.json"), map[string]string{"Retry-After": "0"})
		s.note("%d  GitHub rate-limits the issue's read", i)
	case r < 15 && s.queueMode && !s.x.autoMode && i >= 0:
		s.gh.BlankEnqueues(repo, 1)
		s.note("%d  the merge queue answers the next enqueue without an entry", i)
	case r < 18 && !s.queueMode && s.checks[head] == "success":
		s.loseLease(i)
	}
}

// watchEval runs one evaluation of the PR (busy and held read before it)
// and checks the invariants it must keep on its own.
func (s *sim) watchEval(ctx context.Context, p jobs.PRPayload, busy bool, held string, run func() error) error {
	head, armed, auto := s.head(), s.app.hook != nil, s.x.autoMode && s.pull().AutoMerge
	atGuard := armed && s.app.skip == 1 // feedback lands after the busy check (before the merge guard, if reached)
	skippedBefore := s.store.SkippedEval(ctx, repo, s.pr)
	s.x.leaseMerges = -1
	err := run()
	hooked := armed && s.app.hook == nil
	if n := s.gh.MergeCalls(repo, s.pr); s.x.leaseMerges >= 0 && n > s.x.leaseMerges {
		s.broken = append(s.broken, fmt.Sprintf("%d merge calls after another evaluation merged the PR: this one lost its lease and went on", n-s.x.leaseMerges))
	}
	// It looked at the head (not an old head's check event, not a released
	// PR's look CI made moot) and ended well.
	looked := err == nil && (p.SHA == "" || p.SHA == head) && p.Action != "released"
	// It judged the current head: any evaluation but an old head's check
	// event (lifecycle's stale: ignored before anything is read) and a
	// released PR's look. A sync naming an older head judges the current
	// one, and may turn auto-merge on: what it saw is what GitHub's
	// auto-merge acts on next (soak seed 6254: with only looked ones
	// counted, a stale busy from an earlier evaluation was blamed).
	judged := err == nil && p.Action != "released" && !(p.Action != "sync" && p.SHA != "" && p.SHA != head)
	if judged {
		s.x.lastHeld, s.x.lastBusy = held != "", busy
		// Feedback the merge guard saw (it noted the evaluation skipped,
		// after a start that was not busy) was the guard's to act on: it
		// must take auto-merge back too (soak seed 1030). An evaluation
		// that stopped before the guard did not see it: the feedback's own
		// follow-up takes the PR back, and GitHub may merge before that,
		// as it may between any event and Warden's answer (seed 243).
		guardSaw := atGuard && hooked && !busy && !skippedBefore && s.store.SkippedEval(ctx, repo, s.pr)
		s.x.lastBusy = s.x.lastBusy || guardSaw
	}
	free := !busy && held == "" && !hooked
	if atGuard && hooked && auto {
		s.count(fmt.Sprintf("feedback before the merge guard under auto-merge (ended well: %v)", looked))
	}
	if looked && free && s.checks[head] == "failure" && s.head() == head && !s.pull().Merged && !s.reported(head) {
		s.broken = append(s.broken, fmt.Sprintf("the red head %s was evaluated while free and not reported on the issue (a failed report counted as done?)", head[:7]))
	}
	// GitHub's auto-merge, on since before this evaluation, acts on what it
	// left, some time after (the queue's own checks): a person's push or
	// feedback may come first, and Warden must take it back then.
	// Always when feedback landed mid-evaluation: GitHub may act right after.
	if auto && !s.merged && (atGuard && hooked || s.rng.Intn(2) == 0) {
		s.autoMergeStep(ctx, -2)
	}
	return err
}

// lastRed is the quiet world's last turn, in half the seeds: CI fails on
// the head left unreported, and GitHub rate-limits the issue's read for the
// first report. The evaluation fails before anything of the report is
// done; its retry must still report the head (a report counted before it
// is made is never retried). Mid-seed, a red head's evaluation mostly
// finds the PR busy with feedback, so this is where the report's retry is
// reached reliably.
func (s *sim) lastRed(ctx context.Context) error {
	head := s.head()
	if s.merged || s.isHeld(ctx) || s.reported(head) || s.rng.Intn(2) == 0 {
		return nil
	}
	if busy, _ := s.store.Busy(ctx, repo, s.pr); busy {
		return nil
	}
	path := fmt.Sprintf("/repos/%s/issues/%d$", repo, s.issue)
	s.gh.FailNext("GET", path, 4, http.StatusForbidden, harness.Fixture(s.t, "github-api/rate-limit-secondary.403.json"), map[string]string{"Retry-After": "0"})
	s.note("-1  GitHub rate-limits the issue's read")
	s.checkDone(ctx, -1, "failure")
	if err := s.drain(ctx); err != nil {
		return err
	}
	if !s.pull().Merged && !s.reported(head) {
		return s.fail("the red head %s, rate-limited at its first report, was never reported on the issue", head[:7])
	}
	return nil
}
