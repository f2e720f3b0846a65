package lifecycle

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/warden-bot/warden/jobs"
)

// mergeableWorld is a green maintenance PR for issue 7 whose next looks
// GitHub answers `mergeable: null` (n < 0: every look), with the merge
// calls Warden makes counted.
func mergeableWorld(t *testing.T, looks int) (w *world, n int, sha string, calls *int) {
	w = newWorld(t)
	w.gh.AddIssue(repo, 7, "Fix", "", "alice", "warden:maintenance")
	n, sha = w.openPR(7, "maintenance")
	w.gh.SetCheckRun(repo, sha, "ci", "completed", "success")
	w.gh.SetMergeableComputing(repo, n, looks)
	calls = new(int)
	withHook(w, func(r *http.Request) {
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/merge") {
			*calls++
		}
	})
	return w, n, sha, calls
}

// retriesScheduled counts the PR re-evaluations waiting in the queue.
func (w *world) retriesScheduled(t *testing.T) int {
	t.Helper()
	sched, err := w.queue.Inspector().ListScheduledTasks(jobs.QueueCritical)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, ti := range sched {
		if ti.Type == jobs.TypePR && strings.Contains(string(ti.Payload), `"retry"`) {
			k++
		}
	}
	return k
}

func (w *world) notesSaying(s string) int {
	k := 0
	for _, c := range w.gh.Comments(repo, 7) {
		if strings.Contains(c.Body, s) {
			k++
		}
	}
	return k
}

func (w *world) mergedPR(n int) bool {
	for _, p := range w.gh.Pulls(repo) {
		if p.Number == n {
			return p.Merged
		}
	}
	return false
}

const computingNote = "GitHub is still computing whether the PR can merge"

// #27 item 8: `mergeable: null` is "not computed yet", not "mergeable":
// no merge call, a later look scheduled, the wait said on the issue; the
// look that finds it computed merges. Before the fix the first look merged.
func TestMergeableNullWaitsThenMerges(t *testing.T) {
	w, n, sha, calls := mergeableWorld(t, 2)
	ctx := context.Background()
	p := jobs.PRPayload{Repo: repo, Installation: inst, PR: n, Action: "checks"}
	for range 2 { // two events while GitHub computes: still one note
		if err := w.life.PR(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if *calls != 0 || w.mergedPR(n) {
		t.Fatalf("merge called %d times while GitHub had not computed mergeable", *calls)
	}
	if got := w.retriesScheduled(t); got == 0 {
		t.Fatal("no re-evaluation scheduled while mergeable is null")
	}
	if got := w.notesSaying(computingNote); got != 1 {
		t.Fatalf("%d comments say the PR waits for GitHub, want 1: %v", got, w.gh.Comments(repo, 7))
	}
	retry := jobs.PRPayload{Repo: repo, Installation: inst, PR: n, SHA: sha, Action: "retry"}
	if err := w.life.PR(ctx, retry); err != nil {
		t.Fatal(err)
	}
	if *calls != 1 || !w.mergedPR(n) {
		t.Fatalf("computed mergeable: merged=%v after %d merge calls", w.mergedPR(n), *calls)
	}
}

// A PR GitHub never computes is looked at a bounded number of times, and
// the issue then says so instead of forgetting the PR.
func TestMergeableNullIsBoundedAndSaid(t *testing.T) {
	w, n, sha, calls := mergeableWorld(t, -1)
	ctx := context.Background()
	for range maxRetries + 1 {
		if err := w.life.PR(ctx, jobs.PRPayload{Repo: repo, Installation: inst, PR: n, SHA: sha, Action: "retry"}); err != nil {
			t.Fatal(err)
		}
	}
	if *calls != 0 || w.mergedPR(n) {
		t.Fatalf("merge called %d times while mergeable is null", *calls)
	}
	if got := w.retriesScheduled(t); got != maxRetries {
		t.Fatalf("%d re-evaluations scheduled, want %d", got, maxRetries)
	}
	if got := w.notesSaying("GitHub has not said whether the PR can merge"); got != 1 {
		t.Fatalf("the bounded wait is not said on the issue: %v", w.gh.Comments(repo, 7))
	}
}
