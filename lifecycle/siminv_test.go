package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/jobs"
)

// The interleaving test's invariants on Warden's own pushes and on the
// branch's hand-back (#38): no push onto a held branch, and a writer's
// `/warden retry` that came after the hold's last push hands it back.

// wardenPush is a push of Warden's (a follow-up's, an issue run's) onto the
// branch. The branch must not be held: neither in the store, nor by a
// person's push the store showed held and no later retry handed back (a
// hold lifted by a stale retry still holds the branch).
func (s *sim) wardenPush(ctx context.Context, what string) string {
	// A hold whose push is older than the last writer's retry was handed
	// back by that retry, even when its event came later.
	at, _ := s.be.RDB.Get(ctx, fmt.Sprintf("warden:followup:%s#%d:hold-at", repo, s.pr)).Int64()
	if by, _ := s.store.Held(ctx, repo, s.pr); by != "" && at > s.retriedAt.Unix() {
		s.broken = append(s.broken, fmt.Sprintf("%s pushed onto the branch %s holds", what, by))
	} else if s.handedOver && s.holdSeen {
		s.broken = append(s.broken, fmt.Sprintf("%s pushed onto a branch a person pushed to since the last `/warden retry` (the hold was lifted anyway)", what))
	}
	sha := s.commit("warden")
	s.queueDropsOnPush(ctx)
	return sha
}

// sawHold notes when the store holds the branch for the latest person's
// push (its time or later): from then on, only a newer retry lifts it.
func (s *sim) sawHold(ctx context.Context) {
	if !s.handedOver || s.holdSeen {
		return
	}
	at, err := s.be.RDB.Get(ctx, fmt.Sprintf("warden:followup:%s#%d:hold-at", repo, s.pr)).Int64()
	if err == nil && at >= s.pushedAt.Unix() {
		s.holdSeen = true
	}
}

// handedBack checks a writer's retry written after the hold's last push
// (which the store showed): the branch is Warden's again.
func (s *sim) handedBack(ctx context.Context, where string) {
	if s.merged || s.pull().Merged {
		return // a merged PR's branch is nobody's to hand back (soak seed 1970)
	}
	if by, _ := s.store.Held(ctx, repo, s.pr); by != "" {
		s.broken = append(s.broken, fmt.Sprintf("a writer's `/warden retry` on the %s, written after %s's last push, left the branch held", where, by))
	}
}

// broke reports the first invariant a step broke.
func (s *sim) broke() error {
	if len(s.broken) == 0 {
		return nil
	}
	return s.fail("%s", strings.Join(s.broken, "; "))
}

// mergeCalls checks GitHub saw at most one successful merge call for the
// PR, and none once it was merged.
func (s *sim) mergeCalls() error {
	n := s.gh.MergeCalls(repo, s.pr)
	if s.merged && s.mergedAfter < 0 {
		s.mergedAfter = n
	}
	if s.merged && n > s.mergedAfter {
		return s.fail("%d merge calls on a merged PR", n-s.mergedAfter)
	}
	return nil
}

// sits reports a PR the world left green, unheld and idle yet unmerged:
// nothing Warden still has queued will merge it (a PR in the merge queue or
// with auto-merge on is GitHub's to merge).
func (s *sim) sits(ctx context.Context) error {
	held, _ := s.store.Held(ctx, repo, s.pr)
	busy, _ := s.store.Busy(ctx, repo, s.pr)
	head := s.head()
	if !s.merged && held == "" && s.checks[head] == "failure" && s.looked[head] && !s.reported(head) {
		return s.fail("a red head %s, evaluated while free, was never reported on the issue (no fix queued, no escalation)", head[:7])
	}
	if s.merged || held != "" || busy || s.checks[head] != "success" || s.dropped[head] || s.gh.Queued(repo, s.pr) || s.pull().AutoMerge {
		return nil
	}
	if s.looked[head] && !s.queueMode { // evaluated while free: GitHub's no is said on the issue
		return nil
	}
	return s.fail("a green, unheld, idle PR sits unmerged at %s: nothing evaluated it since it was green and free, or it is not in the merge queue its rules require", head[:7])
}

// reported: the issue was told CI failed on head (checksFailed's reply).
func (s *sim) reported(head string) bool {
	for _, c := range s.gh.Comments(repo, s.issue) {
		if strings.Contains(c.Body, fmt.Sprintf("CI failed on PR #%d (`%s`)", s.pr, head[:7])) {
			return true
		}
	}
	return false
}

// pendingEffects lists the journal's unconfirmed intents for the PR.
func (s *sim) pendingEffects(ctx context.Context) []string {
	keys, _ := s.be.RDB.ZRange(ctx, "warden:effects:pending", 0, -1).Result()
	var out []string
	for _, k := range keys {
		if strings.Contains(k, fmt.Sprintf("#%d:", s.pr)) || strings.Contains(k, fmt.Sprintf("/%d/", s.pr)) {
			out = append(out, k)
		}
	}
	return out
}

// followupQueued: feedback a delivery acknowledged waits for a follow-up
// that is queued (or killed, to be recovered), unless a person holds the
// branch (the hand-back queues it then).
//
// It reads Redis directly: a delivery made from inside an evaluation (the
// feedback hook) runs while that evaluation's Redis restart is under way,
// and a read through the proxy then sees no task at all (soak seed 5272).
func (s *sim) followupQueued(ctx context.Context, event string) {
	st := followup.NewStore(s.direct)
	held, _ := st.Held(ctx, repo, s.pr)
	n, _ := st.Pending(ctx, repo, s.pr)
	if held != "" || n == 0 || len(s.killed) > 0 || s.merged {
		return
	}
	for _, qn := range []string{jobs.QueueDefault, jobs.QueueCritical} {
		p, _ := s.inspect.ListPendingTasks(qn)
		sc, _ := s.inspect.ListScheduledTasks(qn)
		for _, ti := range append(p, sc...) {
			if ti.Type == jobs.TypeRun {
				return
			}
		}
	}
	s.broken = append(s.broken, fmt.Sprintf("%s acknowledged with %d feedback items waiting and no follow-up queued", event, n))
}
