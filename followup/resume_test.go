package followup

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/test/fakegithub"
)

// #27 item 1: a run of an issue whose Warden PR is open continues the PR
// from its head and pushes only onto it; while a human's push holds the
// branch it changes nothing and says how to lift the hold. Before the fix
// the run prepared the branch from the base and force-pushed it, erasing
// the maintainer's commit and every follow-up commit.
func TestIssueRunContinuesItsOpenPR(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	w.host.Poster = &comments.Poster{Client: w.host.Client.Issues, BotLogin: fakegithub.BotLogin}
	w.gh.AddIssue(crashRepo, 3, "Fix", "", "alice", "warden:maintenance")
	r := w.runner(nil)
	p := w.payload()
	p.Reason, p.PR = "retry", 0
	r.After(ctx, p, w.pr) // the first attempt opened the PR

	tk := pipeline.Task{Repo: crashRepo, Issue: 3}
	stop, err := r.Continue(ctx, w.host, &tk, p)
	if err != nil || stop != nil {
		t.Fatalf("continue = %v, %v", stop, err)
	}
	if tk.Resume == nil || tk.Resume.HeadSHA != w.head || tk.Resume.Branch != "warden/3-fix" || w.host.Expect != w.head {
		t.Fatalf("the run does not continue the PR's head: resume %+v, expect %q (head %s)", tk.Resume, w.host.Expect, w.head)
	}

	if _, err := w.store.HoldSince(ctx, crashRepo, w.pr, "bob", time.Time{}); err != nil {
		t.Fatal(err)
	}
	tk = pipeline.Task{Repo: crashRepo, Issue: 3}
	w.host.Expect = ""
	stop, err = r.Continue(ctx, w.host, &tk, p)
	if err != nil || stop == nil {
		t.Fatalf("a run on a held branch went ahead: %v, %v", stop, err)
	}
	said := false
	for _, c := range w.gh.Comments(crashRepo, 3) {
		said = said || strings.Contains(c.Body, "`/warden retry` here or on PR #")
	}
	if !said || tk.Resume != nil {
		t.Fatal("the held run did not say how to lift the hold")
	}
}

// #27 also-seen: a green check while an issue run continues the PR must not
// merge the head the run is about to change. The run marks the PR busy
// from Continue to Ended, whatever its outcome; an evaluation skipped
// meanwhile is queued at its end.
func TestIssueRunKeepsItsPRBusyUntilItEnds(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	r := w.runner(nil)
	var evals []jobs.PRPayload
	r.Reevaluate = func(_ context.Context, p jobs.PRPayload) error { evals = append(evals, p); return nil }
	p := w.payload()
	p.Reason, p.PR = "retry", 0
	r.After(ctx, p, w.pr)

	tk := pipeline.Task{Repo: crashRepo, Issue: 3}
	if stop, err := r.Continue(ctx, w.host, &tk, p); err != nil || stop != nil || tk.Resume == nil {
		t.Fatalf("continue = %v, %v, resume %+v", stop, err, tk.Resume)
	}
	if busy, _ := w.store.Busy(ctx, crashRepo, w.pr); !busy {
		t.Fatal("the PR is not busy while a run continues it: a green check would merge it")
	}
	_ = w.store.Skipped(ctx, crashRepo, w.pr) // what the evaluation of that check does
	r.Ended(ctx, p, tk.Resume)
	if busy, _ := w.store.Busy(ctx, crashRepo, w.pr); busy {
		t.Fatal("the PR stays busy after the run ended")
	}
	// A PR not left to GitHub's merging costs no evaluation as the run
	// starts: only the skipped one, at its end.
	if len(evals) != 1 || evals[0].PR != w.pr {
		t.Fatalf("evaluations queued = %+v, want the skipped one at the run's end", evals)
	}
}

// #38: a PR Warden left to GitHub's own merging (the merge queue,
// auto-merge) is taken back as an issue run starts to change it: an
// evaluation is queued before the run goes on, and a failure to queue it
// stops the run (it is retried) rather than let GitHub merge the old head.
func TestIssueRunTakesABoundPRBackBeforeItChangesIt(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	r := w.runner(nil)
	var evals []jobs.PRPayload
	fail := true
	r.Reevaluate = func(_ context.Context, p jobs.PRPayload) error {
		if fail {
			return errors.New("redis: connection refused")
		}
		evals = append(evals, p)
		return nil
	}
	r.Bound = func(_ context.Context, repo string, issue, pr int) (bool, error) {
		return repo == crashRepo && issue == 3 && pr == w.pr, nil
	}
	p := w.payload()
	p.Reason, p.PR = "retry", 0
	r.After(ctx, p, w.pr)
	tk := pipeline.Task{Repo: crashRepo, Issue: 3}
	if _, err := r.Continue(ctx, w.host, &tk, p); err == nil {
		t.Fatal("the run went on with its bound PR not taken back")
	}
	if busy, _ := w.store.Busy(ctx, crashRepo, w.pr); busy {
		t.Fatal("the PR stays busy after the run stopped")
	}
	fail, tk = false, pipeline.Task{Repo: crashRepo, Issue: 3}
	if stop, err := r.Continue(ctx, w.host, &tk, p); err != nil || stop != nil || tk.Resume == nil {
		t.Fatalf("continue = %v, %v, resume %+v", stop, err, tk.Resume)
	}
	if len(evals) != 1 || evals[0].PR != w.pr || evals[0].Action != "sync" {
		t.Fatalf("evaluations queued = %+v, want one before the run changes the PR", evals)
	}
}

// #38 (2): the run that opened the PR died before recording it (or the
// record expired): the next run of the issue still finds the open PR on
// GitHub (by its head warden/<issue>-…) and continues it, and a held
// branch still stops it. Before, Continue found nothing and Release
// force-pushed the branch from the base over the maintainer's commit.
func TestIssueRunFindsItsOpenPROnGitHub(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	w.host.Poster = &comments.Poster{Client: w.host.Client.Issues, BotLogin: fakegithub.BotLogin}
	w.gh.AddIssue(crashRepo, 3, "Fix", "", "alice", "warden:maintenance")
	r := w.runner(nil)
	p := w.payload()
	p.Reason, p.PR = "retry", 0 // no After: Redis does not know the PR
	if err := w.store.rdb.Del(ctx, key(crashRepo, 3, "issue-pr")).Err(); err != nil {
		t.Fatal(err)
	}

	tk := pipeline.Task{Repo: crashRepo, Issue: 3}
	stop, err := r.Continue(ctx, w.host, &tk, p)
	if err != nil || stop != nil {
		t.Fatalf("continue = %v, %v", stop, err)
	}
	if tk.Resume == nil || tk.Resume.PR != w.pr || tk.Resume.HeadSHA != w.head || w.host.Expect != w.head {
		t.Fatalf("the run does not continue the open PR GitHub shows: resume %+v, expect %q (head %s)", tk.Resume, w.host.Expect, w.head)
	}
	r.Ended(ctx, p, tk.Resume)

	if _, err := w.store.HoldSince(ctx, crashRepo, w.pr, "bob", time.Time{}); err != nil {
		t.Fatal(err)
	}
	tk = pipeline.Task{Repo: crashRepo, Issue: 3}
	if stop, err := r.Continue(ctx, w.host, &tk, p); err != nil || stop == nil || tk.Resume != nil {
		t.Fatalf("a run on a held branch went ahead: %v, %v, resume %+v", stop, err, tk.Resume)
	}
}

// #38 (5): a writer's `/warden retry` on the issue hands a held branch
// back, as one on the PR does, when written after the hold's last push;
// the run continues from the PR's head. An older retry leaves the hold.
func TestIssueRetryHandsTheBranchBack(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	w.gh.AddIssue(crashRepo, 3, "Fix", "", "alice", "warden:maintenance")
	r := w.runner(nil)
	p := w.payload()
	p.Reason, p.PR = jobs.ReasonRetry, 0
	r.After(ctx, p, w.pr)
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	if _, err := w.store.HoldSince(ctx, crashRepo, w.pr, "bob", t0); err != nil {
		t.Fatal(err)
	}
	p.RetryAt = t0.Add(-time.Minute) // written before bob's push
	tk := pipeline.Task{Repo: crashRepo, Issue: 3}
	if stop, err := r.Continue(ctx, w.host, &tk, p); err != nil || stop == nil || tk.Resume != nil {
		t.Fatalf("an older retry handed back a newer push: %v, %v, resume %+v", stop, err, tk.Resume)
	}
	p.RetryAt = t0.Add(time.Minute)
	tk = pipeline.Task{Repo: crashRepo, Issue: 3}
	stop, err := r.Continue(ctx, w.host, &tk, p)
	if err != nil || stop != nil || tk.Resume == nil || tk.Resume.HeadSHA != w.head {
		t.Fatalf("the issue retry did not hand the branch back: %v, %v, resume %+v", stop, err, tk.Resume)
	}
	if by, _ := w.store.Held(ctx, crashRepo, w.pr); by != "" {
		t.Fatalf("still held by %q", by)
	}
}
