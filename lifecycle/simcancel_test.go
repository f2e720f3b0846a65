package lifecycle

import (
	"context"
	"fmt"

	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/jobs"
)

// The interleaving test's `/warden cancel` (#38): a writer's cancel on the
// issue, through the router, sets the issue's cancel flag and deletes what
// waits in the queue (deferrals too). From the moment the flag is seen set
// until a writer's trigger clears it — the router queueing a run for a
// writer (`/warden retry`, new feedback with nothing of the issue live,
// whose EnqueueRun clears the flag), or an issue run the sim plays for a
// retry or a relabel — no attempt of the issue starts: neither a
// follow-up nor an issue run. A machine's enqueue (an evaluation queueing
// the follow-up of waiting feedback, a CI fix) is no writer's trigger.
//
// What a follow-up owes after a cancel: nothing runs, and its feedback is
// kept (pending, or in flight for a killed try), never dropped; a writer's
// `/warden retry` on the issue afterwards answers all of it. At the end of
// a seed whose cancel still stands, the sim checks the feedback is kept,
// then delivers that retry, and the end invariants (every comment
// answered…) must hold after it.

// issueComment is a writer's comment on the issue (not the PR).
func (s *sim) issueComment(body string) map[string]any {
	m := s.fixture("issue_comment.created.json", "alice")
	is := obj(m, "issue")
	is["number"], is["state"] = s.issue, "open"
	is["labels"] = []any{map[string]any{"name": "warden:maintenance"}}
	delete(is, "pull_request")
	c := obj(m, "comment")
	c["id"], c["body"], c["created_at"] = s.rng.Int63n(1<<40), body, s.tick()
	obj(c, "user")["login"] = "alice"
	return m
}

// cancelCmd is a writer's `/warden cancel` on the issue.
func (s *sim) cancelCmd(ctx context.Context, i int) {
	s.note("%d /warden cancel on the issue", i)
	s.count("cancel")
	s.send(ctx, "issue_comment", s.issueComment("/warden cancel"))
	s.sawCancel(ctx)
}

// issueRetryCmd is a writer's `/warden retry` on the issue: the router
// queues the issue's run (clearing the cancel); the worker runs it.
func (s *sim) issueRetryCmd(ctx context.Context, i int) {
	m := s.issueComment("/warden retry")
	s.retriedAt = s.clock
	s.handedOver, s.holdSeen = false, false
	s.note("%d /warden retry on the issue, through the router", i)
	s.send(ctx, "issue_comment", m)
}

func (s *sim) cancelFlag(ctx context.Context) bool {
	n, _ := s.direct.Exists(ctx, "warden:cancel:"+jobs.IssueKey(repo, s.issue)).Result()
	return n > 0
}

// sawCancel: a cancel (or its redelivery) took effect.
func (s *sim) sawCancel(ctx context.Context) {
	if !s.wk.canceled && s.cancelFlag(ctx) {
		s.wk.canceled = true
		s.note("  the cancel took effect")
	}
}

// triggered runs after the router queued a run for a writer: a cleared
// flag is that writer's trigger.
func (s *sim) triggered(ctx context.Context) {
	if s.wk.canceled && !s.cancelFlag(ctx) {
		s.wk.canceled = false
		s.note("  a writer's trigger cleared the cancel")
	}
}

// writerRun is an issue run the sim plays for a writer's retry or relabel:
// the router's EnqueueRun for it clears the cancel flag.
func (s *sim) writerRun(ctx context.Context) {
	_ = jobs.NewFlags(s.direct).ClearCancel(ctx, repo, s.issue)
	s.wk.canceled = false
}

// attemptStarts: the worker let an attempt of the issue start.
func (s *sim) attemptStarts(p jobs.RunPayload) {
	if s.wk.canceled {
		s.broken = append(s.broken, fmt.Sprintf("a %s attempt of the issue started after a writer's `/warden cancel` no writer's trigger cleared", p.Reason))
	}
}

// deferredAfterCancel: a run the worker ended without a Redis restart
// left a new deferred copy though the cancel had taken effect (deferRun's
// contract: a cancel wins over the deferral).
func (s *sim) deferredAfterCancel(id string, before bool) {
	if s.wk.canceled && !before && s.scheduled(id) {
		s.broken = append(s.broken, fmt.Sprintf("the run was deferred (%s) after a writer's `/warden cancel` took effect", id))
	}
}

func (s *sim) scheduled(id string) bool {
	info, err := s.q.Inspector().GetTaskInfo(jobs.QueueDefault, id)
	return err == nil && info != nil
}

// settleCancel ends a seed whose cancel stands: the feedback is kept, and
// a writer's retry on the issue must then answer it.
func (s *sim) settleCancel(ctx context.Context) error {
	s.sawCancel(ctx) // a redelivered cancel
	if !s.wk.canceled {
		return nil
	}
	replied := s.replied()
	for id := range s.comments {
		k := followup.Item{Kind: followup.KindInline, ID: id}.Key()
		pending, _ := s.direct.HExists(ctx, fmt.Sprintf("warden:followup:%s#%d:pending", repo, s.pr), k).Result()
		inflight, _ := s.direct.HExists(ctx, fmt.Sprintf("warden:followup:%s#%d:inflight", repo, s.pr), k).Result()
		if !replied[id] && !pending && !inflight && !s.merged {
			return s.fail("comment %d lost after a cancel: neither answered nor kept", id)
		}
	}
	s.count("settled after a cancel")
	s.issueRetryCmd(ctx, -1)
	if s.wk.canceled {
		return s.fail("a writer's `/warden retry` on the issue left the cancel standing")
	}
	return nil
}
