package lifecycle

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/github/branchrules"
	"github.com/warden-bot/warden/jobs"
)

// A review request a killed worker left unconfirmed is made by the sweep
// from the names its intent recorded (no CODEOWNERS to read again), then
// confirmed: the next sweep asks no one.
func TestSweepMakesAnUnconfirmedReviewRequest(t *testing.T) {
	e := newSimEnv(t)
	ctx := context.Background()
	pr := e.plainPR(t)
	j := effects.New(e.be.RDB)
	t0 := time.Now().Add(-time.Hour)
	it := effects.ReviewIntent(repo, inst, pr.GetNumber(), pr.GetHead().GetSHA(), []string{"alice"}, nil)
	it.At = t0
	if err := j.Begin(ctx, it); err != nil {
		t.Fatal(err)
	}
	l := &Lifecycle{App: e.app, Queue: jobs.NewQueue(e.be), Effects: j, Log: quiet}
	for i, want := range []int{1, 0} {
		if n, err := l.SweepEffects(ctx, time.Now(), 10*time.Minute); err != nil || n != want {
			t.Fatalf("sweep %d: re-drove %d (%v), want %d", i, n, err, want)
		}
	}
	users, _, calls := e.gh.ReviewRequests(repo, pr.GetNumber())
	if !slices.Equal(users, []string{"alice"}) || calls != 1 {
		t.Fatalf("requested %v in %d calls, want alice once", users, calls)
	}
	if done, _ := j.Done(ctx, it.Key); !done {
		t.Fatal("the request is not confirmed in the journal")
	}
}

// A maintenance PR's proposed review request is made only when the rules
// require a review, once per head; later evaluations repeat its sentence.
func TestProposedReviewMadeOnlyUnderAReviewRule(t *testing.T) {
	e := newSimEnv(t)
	ctx := context.Background()
	got := e.plainPR(t)
	j := effects.New(e.be.RDB)
	it := effects.ReviewIntent(repo, inst, got.GetNumber(), got.GetHead().GetSHA(), []string{"alice"}, nil)
	it.Source = "code owners of the changed files"
	if err := j.Propose(ctx, it); err != nil {
		t.Fatal(err)
	}
	l := &Lifecycle{App: e.app, Effects: j, Log: quiet}
	x := &pr{PullRequest: got, owner: "Codertocat", name: "Hello-World"}
	if note := l.askReview(ctx, e.client, x, branchrules.Rules{}, quiet); note != "" {
		t.Fatalf("asked without a review rule: %q", note)
	}
	want := "Review requested from @alice (code owners of the changed files)."
	for i := range 2 {
		if note := l.askReview(ctx, e.client, x, branchrules.Rules{Approvals: 1}, quiet); note != want {
			t.Fatalf("evaluation %d said %q, want %q", i, note, want)
		}
	}
	if users, _, calls := e.gh.ReviewRequests(repo, got.GetNumber()); !slices.Equal(users, []string{"alice"}) || calls != 1 {
		t.Fatalf("requested %v in %d calls, want alice once", users, calls)
	}
}

// plainPR opens a PR of main onto itself: enough for the sweeper's reads.
func (e *simEnv) plainPR(t *testing.T) *github.PullRequest {
	t.Helper()
	pr, _, err := e.client.PullRequests.Create(context.Background(), "Codertocat", "Hello-World", &github.NewPullRequest{
		Title: github.String("t"), Head: github.String("main"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	return pr
}
