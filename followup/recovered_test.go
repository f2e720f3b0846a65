package followup

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/test/fakegithub"
)

const pushedSHA = "abcdef1234567"

// killedAfterPush leaves what a follow-up killed right after its push
// leaves: an inline comment in flight, the follow-up counted (1) and its
// commit recorded. It returns the comment's id.
func killedAfterPush(t *testing.T, w *prWorld) int64 {
	t.Helper()
	ctx := context.Background()
	id := w.gh.AddReviewComment(crashRepo, w.pr, 0, "alice", "fix.txt", 1, "@@", "spell it out")
	rc := &github.PullRequestComment{ID: github.Int64(id), Body: github.String("spell it out"), Path: github.String("fix.txt"), User: &github.User{Login: github.String("alice")}}
	if _, err := w.store.Add(ctx, crashRepo, w.pr, InlineItem(rc, "alice")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.Take(ctx, crashRepo, w.pr); err != nil {
		t.Fatal(err)
	}
	if err := w.store.note(ctx, crashRepo, w.pr, metaCount, "1"); err != nil {
		t.Fatal(err)
	}
	if err := w.store.NotePushed(ctx, crashRepo, w.pr, pushedSHA); err != nil {
		t.Fatal(err)
	}
	return id
}

func (w *prWorld) recover(t *testing.T) {
	t.Helper()
	r := w.runner(func(context.Context, pipeline.Host, pipeline.Task) pipeline.Result {
		t.Fatal("the recovery of a pushed follow-up ran an attempt: a second commit")
		return pipeline.Result{}
	})
	r.Run(context.Background(), w.host, pipeline.Task{Repo: crashRepo, Issue: 3}, w.payload())
}

// outcomes counts Warden's follow-up outcome comments on the PR.
func (w *prWorld) outcomes() int {
	n := 0
	for _, c := range w.gh.Comments(crashRepo, w.pr) {
		if c.Author == fakegithub.BotLogin && strings.Contains(c.Body, noteMark(1)) {
			n++
		}
	}
	return n
}

func (w *prWorld) repliesTo(id int64) int {
	n := 0
	for _, c := range w.gh.ReviewComments(crashRepo, w.pr) {
		if c.InReplyTo == id {
			n++
		}
	}
	return n
}

// A kill between the push and the outcome comment: the recovery posts the
// follow-up's outcome (the only answer a review body or `/warden fix`
// gets), once, and answers the thread.
func TestRecoveryAfterPushPostsTheMissingOutcome(t *testing.T) {
	w := newPRWorld(t)
	id := killedAfterPush(t, w)
	w.recover(t)
	if n := w.outcomes(); n != 1 {
		t.Fatalf("%d outcome comments of the follow-up on the PR, want 1", n)
	}
	if n := w.repliesTo(id); n != 1 {
		t.Fatalf("thread answered %d times, want 1", n)
	}
}

// A kill after the outcome comment and the thread's reply reached GitHub,
// before the reply was recorded: the recovery posts neither again.
func TestRecoveryNeverAnswersTwice(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	id := killedAfterPush(t, w)
	if err := w.host.Poster.Reply(ctx, "Codertocat", "Hello-World", w.pr, "**Warden completed this issue**\n\n"+note(1, nil)); err != nil {
		t.Fatal(err)
	}
	if err := effects.AnswerThread(ctx, nil, effects.GitHub{C: w.host.Client}, replyIntent(w.host, w.payload(), Item{Kind: KindInline, ID: id, Path: "fix.txt"}, pushedSHA)); err != nil {
		t.Fatal(err)
	}
	w.recover(t)
	if n := w.outcomes(); n != 1 {
		t.Fatalf("%d outcome comments of the follow-up on the PR, want 1", n)
	}
	if n := w.repliesTo(id); n != 1 {
		t.Fatalf("thread answered %d times, want 1", n)
	}
	if busy, _ := w.store.Busy(ctx, crashRepo, w.pr); busy {
		t.Fatal("the PR stays busy after the recovery")
	}
}
