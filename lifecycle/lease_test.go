package lifecycle

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/jobs"
)

// hookApp is the App with a client that calls hook before each request.
type hookApp struct {
	App
	c *github.Client
}

func (h hookApp) Client(int64) *github.Client { return h.c }

type hookRT struct {
	base http.RoundTripper
	hook func(*http.Request)
}

func (h hookRT) RoundTrip(r *http.Request) (*http.Response, error) {
	h.hook(r)
	return h.base.RoundTrip(r)
}

func withHook(w *world, hook func(*http.Request)) {
	inner := w.life.App.Client(inst)
	hc := *inner.Client()
	hc.Transport = hookRT{base: hc.Transport, hook: hook}
	c := github.NewClient(&hc)
	c.BaseURL = inner.BaseURL
	w.life.App = hookApp{App: w.life.App, c: c}
}

func followupStore(t *testing.T) *followup.Store {
	b, err := jobs.Open("", quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return followup.NewStore(b.RDB)
}

// #27 item 4: a review stored while the evaluation pages through CI stops
// the merge: "busy" is read again under the PR's lease right before the
// merge call. Before the fix it was read once, before the CI reads.
func TestFeedbackDuringEvaluationStopsTheMerge(t *testing.T) {
	w := newWorld(t)
	store := followupStore(t)
	w.life.Followups = store
	w.gh.AddIssue(repo, 7, "Fix", "", "alice", "warden:maintenance")
	n, sha := w.openPR(7, "maintenance")
	w.gh.SetCheckRun(repo, sha, "ci", "completed", "success")
	withHook(w, func(r *http.Request) {
		if strings.Contains(r.URL.Path, "/graphql") { // the head's CI is read
			_, _ = store.Add(context.Background(), repo, n, followup.Item{Kind: followup.KindReview, ID: 5, Body: "wait, rename it"})
		}
	})
	if err := w.life.PR(context.Background(), jobs.PRPayload{Repo: repo, Installation: inst, PR: n, Action: "checks"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range w.gh.Pulls(repo) {
		if p.Number == n && p.Merged {
			t.Fatal("merged with a review waiting for its follow-up")
		}
	}
}

// #27 item 8: a green PR GitHub refuses to merge for now (405) is looked
// at again later, with backoff; before the fix it waited for an event that
// never came.
func TestRefusedMergeIsEvaluatedAgainLater(t *testing.T) {
	w := newWorld(t)
	w.gh.AddIssue(repo, 7, "Fix", "", "alice", "warden:maintenance")
	n, sha := w.openPR(7, "maintenance")
	w.gh.SetCheckRun(repo, sha, "ci", "completed", "success")
	w.gh.FailNext("PUT", "/repos/"+repo+"/pulls/", 1, 405, []byte(`{"message":"Base branch was modified. Review and try the merge again."}`), nil)
	if err := w.life.PR(context.Background(), jobs.PRPayload{Repo: repo, Installation: inst, PR: n, Action: "checks"}); err != nil {
		t.Fatal(err)
	}
	sched, err := w.queue.Inspector().ListScheduledTasks(jobs.QueueCritical)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ti := range sched {
		found = found || ti.Type == jobs.TypePR
	}
	if !found {
		t.Fatalf("no re-evaluation scheduled after the refused merge (scheduled: %d)", len(sched))
	}
}

// #27 item 6: one transient error while reporting a red head does not
// lose the report: the retried evaluation posts it. Before the fix the
// head was counted as reported (and a fix spent) before the reply.
func TestTransientErrorDoesNotLoseTheCIReport(t *testing.T) {
	w := newWorld(t)
	w.gh.AddIssue(repo, 7, "Fix", "", "alice", "warden:maintenance")
	n, sha := w.openPR(7, "maintenance")
	w.gh.SetCheckRun(repo, sha, "ci", "completed", "failure")
	// The issue read before the report fails through every transport retry.
	w.gh.FailNext("GET", "/repos/"+repo+"/issues/7$", 4, 502, nil, nil)
	p := jobs.PRPayload{Repo: repo, Installation: inst, PR: n, Action: "checks"}
	_ = w.life.PR(context.Background(), p) // answered 502 somewhere: asynq retries it
	if err := w.life.PR(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	reports := 0
	for _, c := range w.gh.Comments(repo, 7) {
		if strings.Contains(c.Body, "CI failed on PR") {
			reports++
		}
	}
	if reports != 1 {
		t.Fatalf("CI failure reported %d times, want 1", reports)
	}
}
