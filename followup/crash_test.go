package followup

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/github/githubapp"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/gitfixture"
)

const crashRepo = "Codertocat/Hello-World"

// prWorld is a Warden PR on the fake GitHub and a follow-up runner on real
// Redis whose attempt the test scripts.
type prWorld struct {
	gh    *fakegithub.Server
	host  *pipeline.GitHubHost
	store *Store
	pr    int
	head  string
	bare  string // the repository's bare clone (the fake's git)
}

func newPRWorld(t *testing.T) *prWorld {
	t.Helper()
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	gh.AddInstallation(7)
	bare, cloneURL := gitfixture.NewRepo(t, map[string]string{"README.md": "hello\n"})
	gh.AddRepo("Codertocat", "Hello-World", cloneURL, "main")
	app, err := githubapp.New(githubapp.Options{AppID: gh.AppID(), PrivateKey: gh.PrivateKeyPEM(), BaseURL: gh.URL()})
	if err != nil {
		t.Fatal(err)
	}
	c := app.Client(7)
	gitfixture.Commit(t, bare, "warden/3-fix", map[string]string{"fix.txt": "x"})
	pr, _, err := c.PullRequests.Create(context.Background(), "Codertocat", "Hello-World", &github.NewPullRequest{
		Title: github.String("Fix (#3)"), Head: github.String("warden/3-fix"), Base: github.String("main"),
		Body: github.String("Fixes #3\n" + pipeline.PRMarker("warden", 3, "maintenance"))})
	if err != nil {
		t.Fatal(err)
	}
	s := store(t)
	// Each test has its own repository name in the shared database.
	return &prWorld{gh: gh, store: s, pr: pr.GetNumber(), head: pr.GetHead().GetSHA(), bare: bare,
		host: &pipeline.GitHubHost{Client: c, Owner: "Codertocat", Name: "Hello-World", Number: 3, Prefix: "warden", BotLogin: fakegithub.BotLogin,
			Poster: &comments.Poster{Client: c.Issues, BotLogin: fakegithub.BotLogin}}}
}

func (w *prWorld) runner(attempt func(context.Context, pipeline.Host, pipeline.Task) pipeline.Result) *Runner {
	return &Runner{Store: w.store, Attempt: attempt, Prefix: "warden", Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Next: func(context.Context, jobs.RunPayload) error { return nil }}
}

func (w *prWorld) payload() jobs.RunPayload {
	return jobs.RunPayload{Repo: crashRepo, Installation: 7, Issue: 3, Reason: jobs.ReasonFollowup, PR: w.pr}
}

// kill runs r's follow-up until its attempt starts and never lets it
// return: the worker died there, none of its deferred clean-up ran.
func kill(t *testing.T, r *Runner, w *prWorld) {
	t.Helper()
	started, never := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(never) })
	inner := r.Attempt
	r.Attempt = func(ctx context.Context, h pipeline.Host, tk pipeline.Task) pipeline.Result {
		close(started)
		<-never
		return inner(ctx, h, tk)
	}
	go r.Run(context.Background(), w.host, pipeline.Task{Repo: crashRepo, Issue: 3}, w.payload())
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the follow-up never started its attempt")
	}
}

// #27 item 2: a worker killed during a follow-up must not lose the
// feedback. The task asynq hands to the next worker finds it and answers
// it; before the fix the items were deleted when the first try took them
// and the recovery found "no pending feedback".
func TestKilledFollowupFeedbackIsAnsweredByTheRecovery(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	if _, err := w.store.Add(ctx, crashRepo, w.pr, Item{Kind: KindComment, ID: 41, Author: "alice", Body: "rename it"}); err != nil {
		t.Fatal(err)
	}
	kill(t, w.runner(func(context.Context, pipeline.Host, pipeline.Task) pipeline.Result { return pipeline.Result{} }), w)
	if busy, _ := w.store.Busy(ctx, crashRepo, w.pr); !busy {
		t.Fatal("a PR whose feedback a killed follow-up holds is not busy: it could merge")
	}
	var got string
	rec := w.runner(func(_ context.Context, _ pipeline.Host, tk pipeline.Task) pipeline.Result {
		if tk.Followup != nil {
			got = tk.Followup.Feedback
		}
		return pipeline.Result{Record: outcome.Record{Outcome: outcome.Escalated}}
	})
	res := rec.Run(ctx, w.host, pipeline.Task{Repo: crashRepo, Issue: 3}, w.payload())
	if !strings.Contains(got, "rename it") {
		t.Fatalf("the recovered follow-up did not get the feedback (result %q)", res.Record.Summary)
	}
	if busy, _ := w.store.Busy(ctx, crashRepo, w.pr); busy {
		t.Fatal("the PR stays busy after the recovered follow-up ended")
	}
}

// #27 item 2, after the push: a worker killed between its push and the
// replies leaves a recovery that posts the replies and makes no second
// commit; each inline thread is answered exactly once.
func TestFollowupKilledAfterPushRepliesOnce(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	id := w.gh.AddReviewComment(crashRepo, w.pr, 0, "alice", "fix.txt", 1, "@@", "spell it out")
	rc := &github.PullRequestComment{ID: github.Int64(id), Body: github.String("spell it out"), Path: github.String("fix.txt"), User: &github.User{Login: github.String("alice")}}
	if _, err := w.store.Add(ctx, crashRepo, w.pr, InlineItem(rc, "alice")); err != nil {
		t.Fatal(err)
	}
	// The first try pushes (its host records the commit), then dies.
	pushing := w.runner(func(ctx context.Context, h pipeline.Host, _ pipeline.Task) pipeline.Result {
		if fh, ok := h.(*pipeline.FollowupHost); ok && fh.OnPush != nil {
			_ = fh.OnPush(ctx, "abcdef1234567")
		}
		return pipeline.Result{}
	})
	started, never := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(never) })
	inner := pushing.Attempt
	pushing.Attempt = func(ctx context.Context, h pipeline.Host, tk pipeline.Task) pipeline.Result {
		inner(ctx, h, tk)
		close(started)
		<-never
		return pipeline.Result{}
	}
	go pushing.Run(ctx, w.host, pipeline.Task{Repo: crashRepo, Issue: 3}, w.payload())
	<-started
	attempts := 0
	rec := w.runner(func(context.Context, pipeline.Host, pipeline.Task) pipeline.Result {
		attempts++
		return pipeline.Result{Record: outcome.Record{Outcome: outcome.Completed}}
	})
	rec.Run(ctx, w.host, pipeline.Task{Repo: crashRepo, Issue: 3}, w.payload())
	rec.Run(ctx, w.host, pipeline.Task{Repo: crashRepo, Issue: 3}, w.payload()) // a redelivered sweep
	if attempts != 0 {
		t.Fatalf("the recovery ran %d more attempts after the push: a second commit", attempts)
	}
	replies := 0
	for _, c := range w.gh.ReviewComments(crashRepo, w.pr) {
		if c.InReplyTo == id {
			replies++
		}
	}
	if replies != 1 {
		t.Fatalf("inline comment answered %d times, want 1", replies)
	}
	if busy, _ := w.store.Busy(ctx, crashRepo, w.pr); busy {
		t.Fatal("the PR stays busy after the replies")
	}
}

// #27 item 10: feedback put back by a deferred follow-up keeps a lifetime
// (a canceled deferral must not leave the PR busy for good), and a hold
// has none: only a writer's retry or the PR's closing lifts it.
func TestFollowupKeyLifetimes(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	if _, err := w.store.Add(ctx, crashRepo, w.pr, Item{Kind: KindComment, ID: 42, Body: "later"}); err != nil {
		t.Fatal(err)
	}
	r := w.runner(func(context.Context, pipeline.Host, pipeline.Task) pipeline.Result {
		return pipeline.Result{Record: outcome.Record{Outcome: outcome.Deferred}}
	})
	r.Run(ctx, w.host, pipeline.Task{Repo: crashRepo, Issue: 3}, w.payload())
	if n, _ := w.store.Pending(ctx, crashRepo, w.pr); n == 0 {
		t.Fatal("a deferred follow-up dropped its feedback")
	}
	if ttl := w.store.rdb.TTL(ctx, key(crashRepo, w.pr, "pending")).Val(); ttl <= 0 {
		t.Fatalf("requeued feedback has no lifetime (ttl %v): the PR would stay busy for good", ttl)
	}
	if _, err := w.store.HoldSince(ctx, crashRepo, w.pr, "bob", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if ttl := w.store.rdb.TTL(ctx, key(crashRepo, w.pr, "hold")).Val(); ttl != -1 {
		t.Fatalf("hold ttl = %v: it would lift by itself and auto-merge the human's head", ttl)
	}
}

// #27 item 9: an inline comment whose own delivery lands while a follow-up
// takes the feedback is answered once: the copy is never queued again.
// Before the fix the take deleted the pending items and marked them
// answered in a second step, and a copy stored in between was pending again.
func TestCopyDeliveredDuringTakeIsNotQueuedAgain(t *testing.T) {
	s, ctx := store(t), context.Background()
	for i := range 300 {
		pr := 100 + i
		it := Item{Kind: KindInline, ID: int64(pr), Body: "once"}
		if _, err := s.Add(ctx, crashRepo, pr, it); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = s.Add(ctx, crashRepo, pr, it) // the comment's own delivery
		}()
		tk, err := s.Take(ctx, crashRepo, pr)
		if err != nil {
			t.Fatal(err)
		}
		<-done
		if n, _ := s.rdb.HLen(ctx, key(crashRepo, pr, "pending")).Result(); n != 0 && len(tk.Items) == 1 {
			t.Fatalf("PR %d: comment taken by the follow-up and queued again for the next one", pr)
		}
	}
}

// An evaluation skipped while a follow-up ran is queued at its end as a
// push's ("sync"): the skipped one may have been the follow-up's own push,
// whose evaluation re-asserts a maintenance PR's warden/mode on the head.
// It is queued once, and the note goes only when it is queued.
func TestSkippedEvaluationIsQueuedAsAPushsAtTheEnd(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	if _, err := w.store.Add(ctx, crashRepo, w.pr, Item{Kind: KindComment, ID: 51, Author: "alice", Body: "rename it"}); err != nil {
		t.Fatal(err)
	}
	if err := w.store.Skipped(ctx, crashRepo, w.pr); err != nil {
		t.Fatal(err)
	}
	var got []jobs.PRPayload
	r := w.runner(func(context.Context, pipeline.Host, pipeline.Task) pipeline.Result {
		return pipeline.Result{Record: outcome.Record{Outcome: outcome.Completed}}
	})
	r.Reevaluate = func(_ context.Context, p jobs.PRPayload) error { got = append(got, p); return nil }
	r.Run(ctx, w.host, pipeline.Task{Repo: crashRepo, Issue: 3}, w.payload())
	if len(got) != 1 || got[0].Action != "sync" || got[0].PR != w.pr {
		t.Fatalf("re-evaluations queued = %+v, want one sync of PR #%d", got, w.pr)
	}
	if w.store.SkippedEval(ctx, crashRepo, w.pr) {
		t.Fatal("the skipped note stays after its evaluation was queued")
	}
}
