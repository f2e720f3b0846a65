package chaos

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// Bursts of 5xx on every kind of write a task makes: comment creation and
// edits, label changes, PR creation. Two of the failed POSTs were applied
// by GitHub before it answered 502 (a backend timeout): Warden must look
// before it posts again. The task completes with one status comment, one
// outcome comment and one PR.
func TestGitHubServerErrorsAreRetriedWithoutDuplicates(t *testing.T) {
	t.Parallel()
	w := world.New(t, nil)
	w.Model.Script(world.HappyScript)
	const n = 101
	issue := "/repos/" + world.Repo + "/issues/" + strconv.Itoa(n)
	// The first comment posts meet two plain failures, then one that
	// GitHub stored anyway.
	w.GH.FailNext(http.MethodPost, issue+"/comments$", 2, http.StatusBadGateway, serverError, nil)
	w.GH.ApplyThenFail(http.MethodPost, issue+"/comments$", 1, http.StatusBadGateway, serverError, nil)
	w.GH.FailNext(http.MethodPatch, "/repos/"+world.Repo+"/issues/comments/", 2, http.StatusInternalServerError, serverError, nil)
	w.GH.FailNext(http.MethodPost, issue+"/labels$", 2, http.StatusInternalServerError, serverError, nil)
	w.GH.FailNext(http.MethodDelete, issue+"/labels/", 2, http.StatusBadGateway, serverError, nil)
	// PR creation: three plain failures, then one that opened the PR.
	w.GH.FailNext(http.MethodPost, "/repos/"+world.Repo+"/pulls$", 3, http.StatusBadGateway, serverError, nil)
	w.GH.ApplyThenFail(http.MethodPost, "/repos/"+world.Repo+"/pulls$", 1, http.StatusBadGateway, serverError, nil)

	completesDespiteFaults(t, w, n, "5xx")
	if prs := w.GH.Pulls(world.Repo); len(prs) != 1 {
		t.Errorf("%d pull requests, want 1", len(prs))
	}
	for _, c := range []struct{ method, prefix string }{
		{http.MethodPost, issue + "/comments"}, {http.MethodPatch, "/repos/" + world.Repo + "/issues/comments/"},
		{http.MethodPost, issue + "/labels"}, {http.MethodDelete, issue + "/labels/"}, {http.MethodPost, "/repos/" + world.Repo + "/pulls"},
	} {
		for _, status := range []int{http.StatusInternalServerError, http.StatusBadGateway} {
			for _, r := range retries(t, w, c.method, c.prefix, status) {
				// Backoff, not a hot loop: the shortest wait anywhere is
				// the Release stage's 200 ms less 20 % jitter.
				if gap := r.next.Time.Sub(r.failed.Time); gap < 150*time.Millisecond {
					t.Errorf("%s %s retried %s after a %d", c.method, r.failed.Path, gap, status)
				}
			}
		}
	}
	healthy(t, w)
}

// GitHub's rate limits, with its real bodies: a secondary limit (403,
// Retry-After: 1) on comment creation and a primary one (403, none
// remaining, reset one to two seconds on) on the PR listing and on
// labels. Each retry waits as long as the headers say, and the task
// completes with nothing doubled.
func TestGitHubRateLimitsAreHonoured(t *testing.T) {
	t.Parallel()
	w := world.New(t, nil)
	w.Model.Script(world.HappyScript)
	const n = 102
	issue := "/repos/" + world.Repo + "/issues/" + strconv.Itoa(n)
	secondary := harness.Fixture(t, "github-api/rate-limit-secondary.403.json")
	primary := harness.Fixture(t, "github-api/rate-limit-primary.403.json")
	w.GH.FailNext(http.MethodPost, issue+"/comments$", 2, http.StatusForbidden, secondary, map[string]string{"Retry-After": "1"})
	w.GH.RateLimitNext(http.MethodPost, "/repos/"+world.Repo+"/pulls$", 1, primary, time.Second) // release creates the PR first
	w.GH.RateLimitNext(http.MethodPost, issue+"/labels$", 1, primary, 2*time.Second)

	completesDespiteFaults(t, w, n, "ratelimit")
	limited := 0
	for _, c := range []struct{ method, prefix string }{
		{http.MethodPost, issue + "/comments"}, {http.MethodPost, "/repos/" + world.Repo + "/pulls"}, {http.MethodPost, issue + "/labels"},
	} {
		for _, r := range retries(t, w, c.method, c.prefix, http.StatusForbidden) {
			limited++
			if earliest := notBefore(t, r); r.next.Time.Before(earliest) {
				t.Errorf("%s %s retried at %s, before %s as the 403's headers asked", c.method, r.failed.Path,
					r.next.Time.Format("15:04:05.000"), earliest.Format("15:04:05.000"))
			}
		}
	}
	if limited != 4 {
		t.Errorf("%d rate-limited calls were retried, want 4", limited)
	}
	healthy(t, w)
}

// notBefore is when a rate-limited call may be repeated, per its headers.
func notBefore(t *testing.T, r retry) time.Time {
	t.Helper()
	h := r.failed.Header
	if s := h.Get("Retry-After"); s != "" {
		secs, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("Retry-After %q", s)
		}
		return r.failed.Time.Add(time.Duration(secs) * time.Second)
	}
	reset, err := strconv.ParseInt(h.Get("X-Ratelimit-Reset"), 10, 64)
	if err != nil {
		t.Fatalf("a 403 without Retry-After or x-ratelimit-reset: %v", h)
	}
	return time.Unix(reset, 0)
}

// completesDespiteFaults labels issue n and waits for it to complete with
// one PR-open label, every comment once, and every injected fault met.
func completesDespiteFaults(t *testing.T, w *world.World, n int, tag string) {
	t.Helper()
	label(t, w, n, tag)
	rec := w.OutcomeOf(n, outcomeWait)
	if rec.Outcome != outcome.Completed || rec.PR == 0 {
		t.Fatalf("record = %+v\n%s", rec, world.Tail(w.Bot.Logs(), 6000))
	}
	settled(t, w, n, "warden:pr-open")
	once(t, w, n, 1)
	if left := w.GH.FaultsLeft(); left != 0 {
		t.Errorf("%d injected faults were never met", left)
	}
}
