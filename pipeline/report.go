package pipeline

import (
	"context"
	"errors"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/supervisor"
)

type outcomeRecord = outcome.Record

// report shows the outcome on the issue (checklist, outcome comment, state
// label), counts it, and archives the worktree. It runs on a context that
// survives cancellation: a canceled task still says so. The worktree is
// parked or removed while the outcome is posted: nothing below reads it,
// and the two wait on different things (git and the disk, GitHub).
func (a *attempt) report(ctx context.Context, res *Result) {
	removed := a.removeWorktree(ctx)
	defer func() {
		<-removed
		a.log.Info("attempt finished", "outcome", res.Record.Outcome, "failure_class", res.Record.FailureClass,
			"fingerprint", res.Record.Fingerprint, "pr", res.Record.PR, "cost_usd", res.Record.CostUSD)
	}()
	rec := res.Record
	a.publishTranscript(ctx, rec, &res.Details)
	state := finalState(rec)
	if a.awaiting { // the plan comment stands for the outcome comment
		state = StateAwaitingApproval
	}
	note := rec.Summary
	a.tr.spend(rec.SpentUSD, rec.BudgetUSD)
	if rec.FailureClass == outcome.Canceled {
		a.tr.finish(ctx, "canceled", note, rec.PR)
	} else {
		a.tr.finish(ctx, state, note, rec.PR)
	}
	if a.awaiting {
		// no outcome comment: the approved run is the same attempt
	} else if err := a.host.Outcome(ctx, rec, res.Details); err != nil {
		a.log.Error("outcome comment not posted", "err", err)
	}
	if err := a.host.State(ctx, state); err != nil {
		a.log.Warn("state label not set", "err", err)
	}
	if a.p.Metrics != nil {
		a.p.Metrics.Tasks.WithLabelValues(string(rec.Outcome), string(rec.FailureClass)).Inc()
		a.p.Metrics.ModelCost.Add(rec.CostUSD)
		u := a.usage()
		a.p.Metrics.ModelTokens.WithLabelValues("input").Add(float64(u.InputTokens))
		a.p.Metrics.ModelTokens.WithLabelValues("output").Add(float64(u.OutputTokens))
	}
	if a.p.OnOutcome != nil {
		a.p.OnOutcome(ctx, a.t, rec)
	}
	if res.Intervention != "" {
		a.event(supervisor.Event{Time: time.Now(), Kind: supervisor.EventNeedsIntervention, Supervisor: "attempt", Err: errors.New(res.Intervention)})
		if a.p.OnIntervention != nil {
			a.p.OnIntervention(ctx, a.t, res.Intervention)
		}
	}
	if rec.Outcome == outcome.Escalated && rec.FailureClass != outcome.Canceled && a.p.OnTerminal != nil {
		a.p.OnTerminal(ctx, a.t, rec)
	}
}

// removeWorktree parks or removes the task's worktree in the background;
// the channel is closed when it is done.
func (a *attempt) removeWorktree(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	if a.wt == nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		start := time.Now()
		if err := a.p.Workspace.Remove(ctx, a.wt); err != nil {
			a.log.Warn("worktree not removed", "err", err)
		}
		a.log.Info("worktree removed", "duration_ms", time.Since(start).Milliseconds())
	}()
	return done
}
