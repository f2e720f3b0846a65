package followup

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/warden-bot/warden/effects"
)

// journaled gives w's host the effects journal, on the store's Redis.
func journaled(w *prWorld) *effects.Journal {
	j := effects.New(w.store.rdb)
	w.host.Effects = j
	return j
}

// sweep runs the effects sweeper an hour on (past any quiet period), with
// the re-drive lifecycle's sweeper runs for a reply, and reports whether
// the reply to comment id is confirmed afterwards.
func (w *prWorld) sweep(t *testing.T, j *effects.Journal, id int64) bool {
	t.Helper()
	ctx := context.Background()
	g := effects.GitHub{C: w.host.Client}
	if _, err := j.Sweep(ctx, time.Now().Add(time.Hour), 10*time.Minute, func(ctx context.Context, it effects.Intent) error {
		if it.Kind != effects.KindReply {
			return fmt.Errorf("unexpected intent %s", it.Key)
		}
		return effects.RedriveReply(ctx, j, g, it)
	}); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	done, err := j.Done(ctx, effects.ReplyKey(crashRepo, w.pr, id))
	if err != nil {
		t.Fatal(err)
	}
	return done
}

func (w *prWorld) commentsPath() string {
	return fmt.Sprintf("/repos/Codertocat/Hello-World/pulls/%d/comments$", w.pr)
}

// A reply whose POST fails (502) is not lost with the follow-up's end: the
// intent stays owed, and the sweep posts it, once.
func TestFailedReplyIsPostedBySweepOnce(t *testing.T) {
	w := newPRWorld(t)
	j := journaled(w)
	id := killedAfterPush(t, w)
	w.gh.FailNext("POST", w.commentsPath(), 1, 502, []byte(`{"message":"Server Error"}`), nil)
	w.recover(t)
	if n := w.repliesTo(id); n != 0 {
		t.Fatalf("thread answered %d times through a 502", n)
	}
	if !w.sweep(t, j, id) {
		t.Fatal("the owed reply is not confirmed after the sweep")
	}
	w.sweep(t, j, id)
	if n := w.repliesTo(id); n != 1 {
		t.Fatalf("thread answered %d times after two sweeps, want 1", n)
	}
}

// A reply GitHub created but whose answer Warden cannot read (no comment
// in it) stays unconfirmed; the sweep finds it in the thread and confirms
// it rather than answering a second time.
func TestLostReplyAnswerIsConfirmedByReRead(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	j := journaled(w)
	id := killedAfterPush(t, w)
	w.gh.ApplyThenFail("POST", w.commentsPath(), 1, 201, []byte(`{}`), nil)
	w.recover(t)
	if done, _ := j.Done(ctx, effects.ReplyKey(crashRepo, w.pr, id)); done {
		t.Fatal("an answer without the created comment confirmed the reply")
	}
	if !w.sweep(t, j, id) {
		t.Fatal("the posted reply is not confirmed by the re-read")
	}
	if n := w.repliesTo(id); n != 1 {
		t.Fatalf("thread answered %d times, want 1", n)
	}
}

// A person's reply inside a thread is answered once: GitHub files Warden's
// answer under the thread's first comment (in_reply_to_id names that one),
// so only Warden's mark says which comment it answered. Matching on
// in_reply_to_id alone never confirmed it, and every sweep posted again.
func TestReplyToAReplyInAThreadIsConfirmedOnce(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	j := journaled(w)
	root := w.gh.AddReviewComment(crashRepo, w.pr, 0, "bob", "fix.txt", 1, "@@", "why this?")
	id := w.gh.AddReviewReply(crashRepo, w.pr, root, "alice", "spell it out")
	it := replyIntent(w.host, w.payload(), Item{Kind: KindInline, ID: id, Path: "fix.txt"}, pushedSHA)
	if err := effects.AnswerThread(ctx, j, effects.GitHub{C: w.host.Client}, it); err != nil {
		t.Fatalf("GitHub's answer to a reply in a thread was not read as the reply: %v", err)
	}
	w.sweep(t, j, id)
	w.sweep(t, j, id)
	n := 0
	for _, c := range w.gh.ReviewComments(crashRepo, w.pr) {
		if c.Author == w.host.BotLogin {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("Warden answered the thread %d times, want 1", n)
	}
}

// A reply GitHub created whose confirmation was lost (its answer unread,
// or Redis cut between the POST and the confirmation) leaves the comment
// owed; the next follow-up that answers it reads the thread first and
// confirms the reply it finds instead of posting a second one (soak seed
// 9960: a Redis restart during a follow-up, then the next one answered
// the thread again).
func TestNextFollowupDoesNotAnswerAPostedButUnconfirmedReplyAgain(t *testing.T) {
	w, ctx := newPRWorld(t), context.Background()
	j := journaled(w)
	id := w.gh.AddReviewComment(crashRepo, w.pr, 0, "bob", "fix.txt", 1, "@@", "why this?")
	g := effects.GitHub{C: w.host.Client}
	w.gh.ApplyThenFail("POST", w.commentsPath(), 1, 201, []byte(`{}`), nil)
	first := replyIntent(w.host, w.payload(), Item{Kind: KindInline, ID: id, Path: "fix.txt"}, pushedSHA)
	if err := effects.AnswerThread(ctx, j, g, first); err == nil {
		t.Fatal("an answer without the created comment read as the reply")
	}
	next := replyIntent(w.host, w.payload(), Item{Kind: KindInline, ID: id, Path: "fix.txt"}, "feedfacefeedfacefeedfacefeedfacefeedface")
	if err := effects.AnswerThread(ctx, j, g, next); err != nil {
		t.Fatalf("the next follow-up's answer: %v", err)
	}
	if done, _ := j.Done(ctx, next.Key); !done {
		t.Fatal("the reply found in the thread is not confirmed")
	}
	if n := w.repliesTo(id); n != 1 {
		t.Fatalf("thread answered %d times, want 1", n)
	}
}
