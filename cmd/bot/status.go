package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

// statusPoster answers the quick status tasks: "queued", a canceled queued
// task, `/warden status`, and replies to refused commands.
type statusPoster struct {
	a        *app
	locks    *jobs.Locks
	redactor *comments.Redactor
}

func (s *statusPoster) PostStatus(ctx context.Context, p jobs.StatusPayload) error {
	r := &githubRunner{a: s.a, redactor: s.redactor}
	host, err := r.host(ctx, p.Repo, p.Installation, p.Issue, "", "")
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

func (s *statusPoster) queued(ctx context.Context, host *pipeline.GitHubHost, p jobs.StatusPayload) error {
	if err := host.React(ctx); err != nil { // 👀 first, whoever writes the status
		s.a.log.Warn("eyes reaction not posted", "repo", p.Repo, "issue", p.Issue, "err", err)
	}
	// A worker that already took the task owns the status comment now, and
	// one that finished it has said how it ended: "queued" is only true
	// while the task waits in the queue. The status lock keeps a run that
	// starts meanwhile from listing the comments before this one lands.
	lk, err := s.locks.Wait(ctx, jobs.StatusKey(p.Repo, p.Issue), statusLockWait)
	if errors.Is(err, jobs.ErrLocked) {
		return nil // a run is listing the comments: it owns the status now
	} else if err != nil {
		return err
	}
	defer lk.Release(context.WithoutCancel(ctx))
	if running, err := s.locks.Held(ctx, jobs.IssueKey(p.Repo, p.Issue)); err != nil || running {
		return err
	}
	if waiting, err := s.a.queue.Waiting(jobs.RunTaskID(p.Repo, p.Issue)); err != nil || !waiting {
		return err
	}
	st := comments.Status{Mode: p.Mode, State: pipeline.StateQueued, Note: p.Note}
	for _, name := range []string{pipeline.StagePlan, pipeline.StageImplement, pipeline.StageTest, pipeline.StageSecurity, pipeline.StageReview, pipeline.StageRelease} {
		st.Stages = append(st.Stages, comments.StageLine{Name: name, State: "pending"})
	}
	// Two calls: the comment (edited when its id is remembered, else
	// created, never looked for) and the label; the run reuses both.
	ids := jobs.NewStatusIDs(s.a.backend.RDB)
	known, _ := ids.Get(ctx, p.Repo, p.Issue)
	id, err := host.QueuedStatus(ctx, st, known)
	if err != nil {
		_ = ids.Set(ctx, p.Repo, p.Issue, -1) // it may have landed: the retry looks for it
		return err
	}
	if err := ids.Set(ctx, p.Repo, p.Issue, id); err != nil {
		s.a.log.Warn("status comment id not remembered", "err", err)
	}
	return host.State(ctx, pipeline.StateQueued)
}

// canceled reports a task that was deleted from the queue before it ran.
func (s *statusPoster) canceled(ctx context.Context, host *pipeline.GitHubHost, p jobs.StatusPayload) error {
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
func (s *statusPoster) report(ctx context.Context, host *pipeline.GitHubHost) error {
	info, err := host.Issue(ctx)
	if err != nil {
		return err
	}
	state := "idle"
	for _, l := range info.Labels {
		if st, ok := strings.CutPrefix(l, s.a.cfg.LabelPrefix+":"); ok && st != "maintenance" && st != "evolution" {
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

func retryable(err error) outcome.Record {
	return outcome.Record{Outcome: outcome.Retryable, FailureClass: outcome.Transient, Summary: err.Error()}.Normalize()
}

// statusLockWait bounds waiting for the other writer of a status comment;
// a holder that died lets go when the lock's TTL passes.
const statusLockWait = 30 * time.Second

// statusLock is pipeline.GitHubHost.StatusLock for the run of an issue.
// Waiting too long, or Redis failing, goes on unlocked: a doubled status
// comment is better than a stuck task.
func statusLock(locks *jobs.Locks, log *slog.Logger, repo string, issue int) func(context.Context) func() {
	return func(ctx context.Context) func() {
		lk, err := locks.Wait(ctx, jobs.StatusKey(repo, issue), statusLockWait)
		if err != nil {
			log.Warn("status comment lock not taken", "repo", repo, "issue", issue, "err", err)
			return func() {}
		}
		return func() { lk.Release(context.WithoutCancel(ctx)) }
	}
}
