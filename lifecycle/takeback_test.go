package lifecycle

import (
	"context"
	"strings"
	"testing"

	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/followup"
)

const queueOff = "queue-off:" + gateRepo + "#3:"

// takeBackWorld is a queued PR (or one under auto-merge) whose take-back
// GitHub answered 502: feedback was waiting when the evaluation asked
// GitHub to stop merging it, and the follow-up has since answered it.
func takeBackWorld(t *testing.T, auto bool) (*gateGH, *Lifecycle) {
	t.Helper()
	g := greenQueued(t, auto)
	be, q := testQueue(t)
	l := g.lifecycle()
	l.Queue, l.Followups, l.Effects = q, followup.NewStore(be.RDB), effects.New(be.RDB)
	g.evaluate(t, l) // bound: queued, or auto-merge on
	ctx := context.Background()
	item := followup.Item{Kind: followup.KindComment, ID: 71, Author: "alice", Body: "wait"}
	if _, err := l.Followups.Add(ctx, gateRepo, 3, item); err != nil {
		t.Fatal(err)
	}
	g.rules.gql502 = 1
	if err := g.evaluateErr(l); err == nil {
		t.Fatal("the take-back was answered 502, yet the evaluation succeeded")
	}
	taken, err := l.Followups.Take(ctx, gateRepo, 3) // the follow-up answers it
	if err == nil {
		err = l.Followups.Finish(ctx, gateRepo, 3, taken.Items)
	}
	if err != nil {
		t.Fatal(err)
	}
	return g, l
}

// Soak seed 8002 (#38): a take-back GitHub answered 502 stayed pending
// once nothing needed it (the follow-up's push had taken the PR out of the
// queue, and its removal event was lost; or the follow-up pushed nothing
// and the PR is neither held nor busy): no evaluation took the PR back
// again, so nothing confirmed or dropped the intent and the sweeper
// re-evaluated the PR every ten minutes for the journal's 30 days. The
// evaluation now ends a take-back no longer owed: confirmed when GitHub
// shows the binding gone (and counted off), dropped when it still stands.
func TestATakeBackNoLongerOwedLeavesTheJournal(t *testing.T) {
	for _, tc := range []struct {
		name       string
		auto, gone bool
	}{{"queue left on GitHub's side", false, true}, {"still queued", false, false},
		{"auto-merge turned off on GitHub's side", true, true}, {"auto-merge still on", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			g, l := takeBackWorld(t, tc.auto)
			key, off := queueOff, "dequeuePullRequest"
			if tc.auto {
				key, off = "automerge-off:"+gateRepo+"#3:", "disablePullRequestAutoMerge"
			}
			if tc.gone {
				g.rules.queued, g.rules.autoMerge = false, false
			}
			n := len(g.rules.graphql)
			g.evaluate(t, l) // the sweeper's re-drive
			ctx := context.Background()
			if pending, err := l.Effects.Pending(ctx, key); err != nil || pending {
				t.Fatalf("take-back still pending (%v) after an evaluation that found nothing owing it", err)
			}
			// Gone: counted off, so the green, unheld PR is bound again
			// (one enqueue, or one enable); standing: still bound, untouched.
			on := "enqueuePullRequest"
			if tc.auto {
				on = "enablePullRequestAutoMerge"
			}
			if c := g.calls(n, on); c != map[bool]int{true: 1}[tc.gone] {
				t.Fatalf("%d calls of %s after the take-back settled: %q", c, on, g.rules.graphql[n:])
			}
			if bound, err := l.Bound(ctx, gateRepo, gateIssue, 3); err != nil || !bound {
				t.Fatalf("Bound = %v (%v), want true", bound, err)
			}
			if c := g.calls(n, off); c != 0 {
				t.Fatalf("took back %d times a PR nothing held or waited on: %q", c, g.rules.graphql[n:])
			}
		})
	}
}

// GitHub's state of the PR cannot be read (a 502; an Enterprise Server
// without the fields): nothing is settled on a guess, the intent stays
// pending, and the evaluation goes on (it merges nothing by it).
func TestAnUnreadableBindingReadKeepsTheTakeBackPending(t *testing.T) {
	g, l := takeBackWorld(t, false)
	g.rules.queued = false
	g.rules.gql502 = 1 // the state read itself
	g.evaluate(t, l)
	if pending, err := l.Effects.Pending(context.Background(), queueOff); err != nil || !pending {
		t.Fatalf("take-back pending = %v (%v) after a failed read, want still pending", pending, err)
	}
}

// Feedback took a queued PR back (the dequeue confirmed), and its
// follow-up answered without a push: the head is the one GitHub queued
// before, and the next evaluation of the green, unheld PR must queue it
// again. The head counted as queued for good ("already in the merge
// queue"), and the PR sat out of the queue.
func TestATakenBackHeadIsQueuedAgain(t *testing.T) {
	for _, lost := range []bool{false, true} {
		g, l := takeBackWorld(t, false)
		if !lost { // the dequeue's second try gets through, under the feedback
			ctx := context.Background()
			if _, err := l.Followups.Add(ctx, gateRepo, 3, followup.Item{Kind: followup.KindComment, ID: 72, Author: "alice", Body: "and this"}); err != nil {
				t.Fatal(err)
			}
			g.evaluate(t, l)
			taken, err := l.Followups.Take(ctx, gateRepo, 3)
			if err == nil {
				err = l.Followups.Finish(ctx, gateRepo, 3, taken.Items)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		g.rules.queued = false // lost: the 502 was GitHub's answer to a dequeue it did
		n := len(g.rules.graphql)
		g.evaluate(t, l)
		if g.calls(n, "enqueuePullRequest") != 1 || !g.rules.queued {
			t.Fatalf("dequeue answer lost %v: GraphQL after the feedback %q, want the head queued again", lost, g.rules.graphql[n:])
		}
	}
}

// GitHub turns auto-merge off by itself (a push by someone without write
// access) and a maintainer may: the green, unheld PR then sat silently,
// Warden still counting it as bound ("GitHub enters it by itself"). The PR
// as read shows auto-merge off: the binding is counted off, and the head
// is left to the maintainer, said on the issue, not turned on again.
func TestAutoMergeTurnedOffOnGitHubIsSaidAndRespected(t *testing.T) {
	g := greenQueued(t, true)
	l := g.lifecycle()
	g.evaluate(t, l)
	n := len(g.rules.graphql)
	g.evaluate(t, l) // still on: nothing to do
	if len(g.rules.graphql) != n {
		t.Fatalf("auto-merge on, yet asked GitHub again: %q", g.rules.graphql[n:])
	}
	g.rules.autoMerge = false
	out := g.evaluate(t, l)
	if !strings.Contains(out, "turned off on GitHub") {
		t.Fatalf("status comment %q does not say auto-merge was turned off", out)
	}
	g.evaluate(t, l)
	if c := g.calls(n, "AutoMerge"); c != 0 || g.rules.autoMerge {
		t.Fatalf("GraphQL after auto-merge was turned off on GitHub: %q, want it left off", g.rules.graphql[n:])
	}
	if bound, err := l.Bound(context.Background(), gateRepo, gateIssue, 3); err != nil || bound {
		t.Fatalf("Bound = %v (%v) once GitHub shows auto-merge off, want false", bound, err)
	}
}
