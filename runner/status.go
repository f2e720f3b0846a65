package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

// waiter says whether a task still waits in the queue (jobs.Queue).
type waiter interface {
	Waiting(id string) (bool, error)
}

// StatusPoster answers the quick status tasks: "queued", a canceled queued
// task, `/warden status`, and replies to refused commands (jobs.StatusPoster).
type StatusPoster struct {
	Hosts *Hosts
	Locks *jobs.Locks
	Queue waiter
	IDs   *jobs.StatusIDs // the status comment's id, written here and reused by the run
	Log   *slog.Logger
}

func (s *StatusPoster) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// PostStatus posts the status p asks for.
func (s *StatusPoster) PostStatus(ctx context.Context, p jobs.StatusPayload) error {
	host, err := s.Hosts.Host(ctx, p.Repo, p.Installation, p.Issue, "", "")
	if err != nil {
		return err
	}
	switch p.State {
	case "reply":
		return host.Poster.Reply(ctx, host.Owner, host.Name, host.Number, p.Note)
	case "queued":
		return s.queued(ctx, host, p)
	case "canceled":
		return s.canceled(ctx, host, p)
	case "status":
		return s.report(ctx, host)
	}
	return fmt.Errorf("unknown status state %q", p.State)
}

func (s *StatusPoster) queued(ctx context.Context, host *pipeline.GitHubHost, p jobs.StatusPayload) error {
	if err := host.React(ctx); err != nil { // 👀 first, whoever writes the status
		s.log().Warn("eyes reaction not posted", "repo", p.Repo, "issue", p.Issue, "err", err)
	}
	// A worker that already took the task owns the status comment now, and
	// one that finished it has said how it ended: "queued" is only true
	// while the task waits in the queue. The status lock keeps a run that
	// starts meanwhile from listing the comments before this one lands.
	lk, err := s.Locks.Wait(ctx, jobs.StatusKey(p.Repo, p.Issue), statusLockWait)
	if errors.Is(err, jobs.ErrLocked) {
		return nil // a run is listing the comments: it owns the status now
	} else if err != nil {
		return err
	}
	defer lk.Release(context.WithoutCancel(ctx))
	if running, err := s.Locks.Held(ctx, jobs.IssueKey(p.Repo, p.Issue)); err != nil || running {
		return err
	}
	if waiting, err := s.Queue.Waiting(jobs.RunTaskID(p.Repo, p.Issue)); err != nil || !waiting {
		return err
	}
	st := comments.Status{Mode: p.Mode, State: pipeline.StateQueued, Note: p.Note}
	for _, name := range []string{pipeline.StagePlan, pipeline.StageImplement, pipeline.StageTest, pipeline.StageSecurity, pipeline.StageReview, pipeline.StageRelease} {
		st.Stages = append(st.Stages, comments.StageLine{Name: name, State: "pending"})
	}
	// Two calls: the comment (edited when its id is remembered, else
	// created, never looked for) and the label; the run reuses both.
	ids := s.IDs
	known, _ := ids.Get(ctx, p.Repo, p.Issue)
	id, err := host.QueuedStatus(ctx, st, known)
	if err != nil {
		_ = ids.Set(ctx, p.Repo, p.Issue, -1) // it may have landed: the retry looks for it
		return err
	}
	if err := ids.Set(ctx, p.Repo, p.Issue, id); err != nil {
		s.log().Warn("status comment id not remembered", "err", err)
	}
	return host.State(ctx, pipeline.StateQueued)
}

// canceled reports a task that was deleted from the queue before it ran.
func (s *StatusPoster) canceled(ctx context.Context, host *pipeline.GitHubHost, p jobs.StatusPayload) error {
	if _, err := host.Issue(ctx); err != nil {
		return err
	}
	st := comments.Status{Mode: p.Mode, State: "canceled", Note: "Canceled before it started: " + p.Note}
	if err := host.Status(ctx, st); err != nil {
		return err
	}
	rec := outcome.Record{
		Outcome: outcome.Escalated, FailureClass: outcome.Canceled, Mode: p.Mode, Attempt: 1,
		Summary:     "Canceled before it started: " + p.Note + ".",
		Fingerprint: outcome.Fingerprint("Queue", outcome.Canceled, "canceled before start"),
	}.Normalize()
	if err := host.Outcome(ctx, rec, comments.Details{}); err != nil {
		return err
	}
	return host.State(ctx, pipeline.StateEscalated)
}

// report answers `/warden status` with the issue's state label and last outcome.
func (s *StatusPoster) report(ctx context.Context, host *pipeline.GitHubHost) error {
	info, err := host.Issue(ctx)
	if err != nil {
		return err
	}
	state := "idle"
	for _, l := range info.Labels {
		if st, ok := strings.CutPrefix(l, s.Hosts.Prefix+":"); ok && st != "maintenance" && st != "evolution" {
			state = st
		}
	}
	msg := fmt.Sprintf("Warden state: **%s**.", state)
	if recs, err := host.PriorOutcomes(ctx); err == nil && len(recs) > 0 {
		last := recs[len(recs)-1]
		msg += fmt.Sprintf(" Last outcome: attempt %d, `%s`", last.Attempt, last.Outcome)
		if last.FailureClass != "" {
			msg += fmt.Sprintf(" (`%s`)", last.FailureClass)
		}
		msg += "."
	}
	return host.Poster.Reply(ctx, host.Owner, host.Name, host.Number, msg)
}
