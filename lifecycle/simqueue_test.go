package lifecycle

import (
	"context"
	"fmt"
	"net/http"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/harness"
)

// The interleaving test's GitHub (#38): the merge queue some seeds'
// rules require, GitHub's faults while Warden evaluates (a 5xx, a
// secondary rate limit answer, `mergeable: null`), feedback arriving in
// the middle of an evaluation, and Redis forgetting the issue's PR.

// midEvalApp is the lifecycle's App; hook, when set, runs once inside the
// next evaluation, at its bot login read after skip others: the second is
// maybeMerge's, after the busy check of branchWork and before the merge
// guard, so an event landing there is one only the guard can see.
type midEvalApp struct {
	App
	hook func(context.Context)
	skip int
}

func (a *midEvalApp) BotLogin(ctx context.Context) (string, error) {
	if h := a.hook; h != nil && a.skip == 0 {
		a.hook = nil
		h(ctx)
	} else if h != nil {
		a.skip--
	}
	return a.App.BotLogin(ctx)
}

// queueRule is the merge_queue ruleset rule as GitHub lists it.
var queueRule = map[string]any{"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
	"max_entries_to_merge": 5, "merge_method": "SQUASH", "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5}

// rules makes a third of the seeds require the merge queue.
func (s *sim) rules() {
	if s.queueMode = s.rng.Intn(3) == 0; s.queueMode {
		s.gh.AddRule(repo, "merge_queue", queueRule)
	}
	s.bindRules() // auto-merge, the PR lease (simbind_test.go)
}

// faults arms what GitHub may do to the next evaluation.
func (s *sim) faults(i int) {
	if i < 0 {
		s.gh.BlankEnqueues(repo, 0) // settling: the sweeper's one turn must find the queue answering
	}
	switch r := s.rng.Intn(20); {
	case r < 2: // a POST is not repeated on a 5xx (the write may have happened): Warden sees it
		path := []string{"/graphql", "/repos/" + repo + "/issues/"}[s.rng.Intn(2)]
		s.gh.FailNext("POST", path, 1, http.StatusBadGateway, []byte(`{"message":"Server Error"}`), nil)
		s.note("%d  GitHub answers 502 on POST %s", i, path)
	case r < 3: // with Retry-After: the client waits it out (0 s here) and asks again
		s.gh.FailNext("POST", "/graphql", 1, http.StatusForbidden, harness.Fixture(s.t, "github-api/rate-limit-secondary.403.json"), map[string]string{"Retry-After": "0"})
		s.note("%d  GitHub answers a secondary rate limit on /graphql", i)
	case r < 4:
		s.gh.SetMergeableComputing(repo, s.pr, 1+s.rng.Intn(2))
		s.note("%d  GitHub still computes mergeable", i)
	case r < 8:
		s.app.skip = s.rng.Intn(2) // at the PR's read, or in maybeMerge
		s.app.hook = func(ctx context.Context) {
			s.note("%d  feedback during the evaluation", i)
			s.inline(ctx, 0)
		}
	default:
		s.bindFaults(i, r)
	}
}

// queueStep is the merge queue (or auto-merge) acting on the PR: it merges
// a green head when Warden has nothing left to say about it, else removes it.
func (s *sim) queueStep(ctx context.Context, i int) {
	if s.autoMergeStep(ctx, i) || !s.gh.Queued(repo, s.pr) {
		return
	}
	head := s.head()
	if s.rng.Intn(3) == 0 || s.checks[head] != "success" {
		s.drop(ctx, i, "the queue's checks failed")
		return
	}
	for _, qn := range []string{jobs.QueueDefault, jobs.QueueCritical} {
		n, _ := s.q.Inspector().ListPendingTasks(qn)
		for _, t := range n {
			if t.Type == jobs.TypeRun || t.Type == jobs.TypePR {
				return // Warden's turn first: a run or an evaluation is waiting (the queue's checks take minutes)
			}
		}
	}
	held, _ := s.store.Held(ctx, repo, s.pr)
	busy, _ := s.store.Busy(ctx, repo, s.pr)
	s.gh.Dequeue(repo, s.pr, true)
	s.merged = true
	s.note("%d the merge queue merged the PR", i)
	s.count("merged by the queue")
	if held != "" || busy || s.going != nil {
		s.broken = append(s.broken, fmt.Sprintf("the merge queue merged the PR while held (%q), busy (%v) or changed by an issue run (%v): Warden had its turn and left it queued", held, busy, s.going != nil))
	}
}

// queueDropsOnPush: GitHub removes a PR whose head moved from the queue.
// Its event is sometimes lost (GitHub does not redeliver on its own):
// Warden must not rest on it (soak seed 8002, takeback.go).
func (s *sim) queueDropsOnPush(ctx context.Context) {
	if !s.gh.Queued(repo, s.pr) {
		return
	}
	if s.rng.Intn(3) > 0 {
		s.drop(ctx, -1, "its head moved")
		return
	}
	s.dropped[s.pull().QueuedHead] = true
	s.gh.Dequeue(repo, s.pr, false)
	s.note("-1 the merge queue removed the PR (its head moved); its event is lost")
	s.count("dropped by the queue, event lost")
}

// drop removes the PR from the queue and sends merge_group destroyed.
func (s *sim) drop(ctx context.Context, i int, why string) {
	head := s.pull().QueuedHead
	s.gh.Dequeue(repo, s.pr, false)
	s.dropped[head] = true
	m := s.fixture("merge_group.destroyed.json", "alice")
	g := obj(m, "merge_group")
	g["head_ref"] = fmt.Sprintf("refs/heads/gh-readonly-queue/main/pr-%d-%s", s.pr, head)
	g["head_sha"] = head
	obj(m, "repository")["full_name"] = repo
	s.note("%d the merge queue removed the PR (%s)", i, why)
	s.count("dropped by the queue")
	s.send(ctx, "merge_group", m)
}

// forget is Redis losing the issue → PR record (expired after 30 days, or
// never written by a run killed after opening the PR): GitHub still knows.
func (s *sim) forget(ctx context.Context, i int) {
	s.be.RDB.Del(ctx, fmt.Sprintf("warden:followup:%s#%d:issue-pr", repo, s.issue))
	s.note("%d Redis forgets the issue's PR", i)
}
