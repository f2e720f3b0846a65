package runner

import (
	"context"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/lifecycle"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

// enqueuer queues a run task (jobs.Queue).
type enqueuer interface {
	EnqueueRun(ctx context.Context, p jobs.RunPayload, opts ...asynq.Option) (jobs.EnqueueResult, error)
	EnqueuePRAfter(ctx context.Context, p jobs.PRPayload, d time.Duration) error
}

// Hooks are the pipeline's callbacks into Redis and the queue: outcome
// history, blockers, sub-issues and the intervention list.
type Hooks struct {
	History       *jobs.History
	Links         *jobs.Links
	Interventions *jobs.Interventions
	Queue         enqueuer
	Log           *slog.Logger
	CIGrace       time.Duration // how long a released PR's CI gets to register (lifecycle.Released)
	Transcripts   *jobs.Transcripts
}

// OnTranscript is pipeline.Pipeline.OnTranscript: every attempt's
// transcript is kept for the operator page, whose path it returns ("" when
// it could not be kept).
func (h *Hooks) OnTranscript(ctx context.Context, t pipeline.Task, text string) string {
	if h.Transcripts == nil {
		return ""
	}
	if err := h.Transcripts.Put(ctx, t.Repo, t.Issue, t.Attempt, text); err != nil {
		h.Log.Warn("transcript not kept", "err", err)
		return ""
	}
	return jobs.TranscriptPath(t.Repo, t.Issue, t.Attempt)
}

// OnOutcome is pipeline.Pipeline.OnOutcome: every outcome goes to the
// history; a blocked one records which issue blocks it, so closing that
// issue requeues this one.
func (h *Hooks) OnOutcome(ctx context.Context, t pipeline.Task, rec outcome.Record) {
	if err := h.History.Append(ctx, t.Repo, t.Issue, rec); err != nil {
		h.Log.Warn("history not recorded", "err", err)
	}
	if err := lifecycle.Released(ctx, h.Queue, t, rec, h.CIGrace); err != nil {
		h.Log.Warn("released PR not queued for evaluation", "err", err)
	}
	if rec.Outcome != outcome.Blocked {
		return
	}
	if blocker := lifecycle.IssueRef(t.Repo, rec.Obstacle.Task); blocker > 0 && blocker != t.Issue {
		if err := h.Links.BlockOn(ctx, t.Repo, blocker, t.Issue); err != nil {
			h.Log.Warn("blocker not recorded", "err", err)
		}
	}
}

// Tree is pipeline.Pipeline.Tree: the size of the task's sub-issue tree.
func (h *Hooks) Tree(ctx context.Context, t pipeline.Task) (int, error) {
	return h.Links.TreeSize(ctx, t.Repo, t.Issue)
}

// Spawn is pipeline.Pipeline.Spawn: it queues a sub-issue's task directly;
// the labeled webhook for it comes from Warden itself and is ignored, and
// the TaskID dedupes anyway.
func (h *Hooks) Spawn(ctx context.Context, parent pipeline.Task, issue int) error {
	if err := h.Links.AddChild(ctx, parent.Repo, parent.Issue, issue); err != nil {
		return err
	}
	_, err := h.Queue.EnqueueRun(ctx, jobs.RunPayload{
		Repo: parent.Repo, RepoID: parent.RepoID, Issue: issue, Mode: parent.Mode, CloneURL: parent.CloneURL,
		DefaultBranch: parent.DefaultBranch, Reason: jobs.ReasonChild, Depth: parent.Depth + 1, Parent: parent.Issue,
		Installation: parent.Installation,
	})
	return err
}

// OnIntervention is pipeline.Pipeline.OnIntervention: the task joins the
// list of tasks waiting for a maintainer's reset.
func (h *Hooks) OnIntervention(ctx context.Context, t pipeline.Task, reason string) {
	v := jobs.Intervention{Repo: t.Repo, Issue: t.Issue, Installation: t.Installation, Mode: t.Mode, Reason: reason}
	if err := h.Interventions.Mark(ctx, v); err != nil {
		h.Log.Error("task not marked as needing intervention", "task", jobs.IssueKey(t.Repo, t.Issue), "err", err)
	}
}
