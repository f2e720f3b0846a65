package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/supervisor"
)

// result turns how the stages ended into the attempt's outcome record.
func (a *attempt) result(ctx context.Context, err error) Result {
	rec := outcome.Record{
		Attempt: a.t.Attempt, Mode: a.t.Mode, Approach: a.plan.Approach, Obstacle: a.plan.Obstacle,
		Discoveries: a.plan.Discoveries, Recommendation: a.plan.Recommendation, Files: a.files,
		PR: a.release.PR, GoalStatus: a.review.GoalStatus, Missing: a.review.Missing,
	}
	if a.wt != nil {
		rec.Branch = a.wt.Branch
	}
	rec.Image = a.env.Digest()
	u := a.usage()
	rec.CostUSD, rec.Tokens = u.CostUSD, u.InputTokens+u.OutputTokens
	rec.SpentUSD, rec.BudgetUSD = a.spend(ctx)
	rec.Egress = a.env.Egress()
	rec.Images = a.env.Pulls()
	rec.Guidance = a.guidanceRecord()
	res := Result{Details: comments.Details{ToolOutput: a.output, ToolOutputTitle: a.outTitle}}
	var end *ending
	var deferErr *supervisor.DeferError
	var gaveUp *supervisor.IntensityExceeded
	switch {
	case err == nil:
		rec.Outcome = outcome.Completed
		rec.Summary = fmt.Sprintf("Opened PR #%d.", a.release.PR)
		if a.release.Note != "" {
			rec.Summary += " " + a.release.Note
		}
		if a.release.PR == 0 {
			rec.Summary = "The change is committed on branch " + a.wt.Branch + "."
		}
	case errors.As(err, &end):
		rec = mergeEnding(rec, end.rec)
	case errors.As(err, &deferErr):
		rec.Outcome, rec.FailureClass = outcome.Deferred, outcome.Transient
		rec.Summary = "A dependency asked Warden to wait; it will try again later."
		res.DeferFor = deferErr.After
	case errors.As(err, &gaveUp):
		rec = a.failure(ctx, rec, err)
		rec.Outcome = outcome.Escalated
		rec.Summary = fmt.Sprintf("Warden's supervisor gave up: %s. The task needs a maintainer's look; `/%s retry` starts it afresh.", summarize(err), a.p.Prefix)
		res.Intervention = gaveUp.Error()
	default:
		rec = a.failure(ctx, rec, err)
	}
	if rec.Outcome == outcome.Deferred && res.DeferFor == 0 {
		res.DeferFor = deferDelay(a.t.Deferrals)
	}
	if rec.Outcome == outcome.Deferred && a.t.Deferrals >= a.cfg.MaxDeferrals {
		rec.Outcome = outcome.Escalated
		rec.Summary = fmt.Sprintf("Deferred %d times already; a maintainer needs to look. %s", a.t.Deferrals, rec.Summary)
	}
	var oe *outcome.Error
	if errors.As(err, &oe) && oe.Output != "" {
		res.Details.ToolOutput = oe.Output
	}
	if rec.Tests == nil {
		rec.Tests = a.testsRecord()
	}
	res.Record = rec.Normalize()
	return res
}

func mergeEnding(rec, e outcome.Record) outcome.Record {
	rec.Outcome, rec.FailureClass, rec.Summary = e.Outcome, e.FailureClass, e.Summary
	rec.Approach, rec.Obstacle, rec.Recommendation = e.Approach, e.Obstacle, e.Recommendation
	rec.Discoveries = e.Discoveries
	rec.Tests = e.Tests
	if rec.Outcome == outcome.Blocked || rec.Outcome == outcome.Deferred || rec.Outcome == outcome.Escalated {
		rec.Fingerprint = outcome.Fingerprint(StagePlan, rec.FailureClass, string(rec.Outcome)+" "+e.Obstacle.Kind)
	}
	return rec
}

// failure classifies an error into the record: its class, fingerprint and
// outcome (retry while the budget and the breaker allow, else escalate).
func (a *attempt) failure(ctx context.Context, rec outcome.Record, err error) outcome.Record {
	v := outcome.Classify(err)
	if ctx.Err() != nil && (maintainerCanceled(ctx) || v.Class != outcome.Transient) {
		v.Class = outcome.Canceled // the parent was canceled: a maintainer stopped it
	}
	stage := a.tr.failedStage()
	rec.FailureClass = v.Class
	rec.Stage = stage
	rec.Summary = summarize(err)
	rec.Fingerprint = fingerprint(stage, v, err)
	if rec.Obstacle.Detail == "" {
		rec.Obstacle = outcome.Obstacle{Kind: string(v.Class), Detail: rec.Summary}
	}
	err = a.count(ctx, stage, err)
	tripped := a.tripped(err)
	switch {
	case v.Class == outcome.Canceled:
		rec.Outcome = outcome.Escalated
		rec.Summary = "Canceled: " + rec.Summary
	case tripped:
		rec.Outcome = outcome.Escalated
		rec.Summary = fmt.Sprintf("The same failure happened %d times; Warden stopped retrying. %s", max(a.cfg.CircuitBreaker.Limit, 1), rec.Summary)
	case v.Class == outcome.Transient && !a.t.Final:
		rec.Outcome = outcome.Retryable
	default:
		rec.Outcome = outcome.Escalated
	}
	return rec
}

// maintainerCanceled reports whether ctx was canceled with a typed Canceled
// cause (a maintainer removed the label or said /warden cancel): then the
// stage's own error, typically a transient "context canceled" from the
// model call or a killed command, says nothing about the task, and the
// attempt is canceled, not retried. Any other cause (a shutdown, a lost
// lock) leaves transient failures retryable.
func maintainerCanceled(ctx context.Context) bool {
	var oe *outcome.Error
	return errors.As(context.Cause(ctx), &oe) && oe.Class == outcome.Canceled
}

// counted is a failure the breaker has counted, with the count so far.
type counted struct {
	error
	n int64
}

func (c *counted) Unwrap() error { return c.error }

// count counts the failure's fingerprint for this issue, across attempts,
// and returns err marked with the count. A failed try is counted once: by
// the stage's supervisor as it fails, or as the attempt ends if no stage
// did. Transient failures are expected to repeat; only fallbacks count.
func (a *attempt) count(ctx context.Context, stage string, err error) error {
	v := outcome.Classify(err)
	var c *counted
	var end *ending
	if a.p.Counter == nil || v.Class == outcome.Canceled || (v.Class == outcome.Transient && !v.Fallback) || errors.As(err, &c) || errors.As(err, &end) {
		return err
	}
	n, ierr := a.p.Counter.Incr(context.WithoutCancel(ctx), fmt.Sprintf("%s#%d:%s", a.t.Repo, a.t.Issue, fingerprint(stage, v, err)))
	if ierr != nil {
		a.log.Warn("fingerprint not counted", "err", ierr)
		return err
	}
	return &counted{err, n}
}

// tripped reports whether a counted failure reached circuit_breaker.limit.
func (a *attempt) tripped(err error) bool {
	var c *counted
	return errors.As(err, &c) && c.n >= int64(max(a.cfg.CircuitBreaker.Limit, 1))
}

func fingerprint(stage string, v outcome.Verdict, err error) string {
	if v.Class == outcome.ContractFailure {
		return outcome.ContractFingerprint(stage, "unparseable or unappliable reply")
	}
	return outcome.Fingerprint(stage, v.Class, err.Error())
}

func summarize(err error) string {
	var oe *outcome.Error
	if errors.As(err, &oe) && oe.Msg != "" {
		return oe.Msg
	}
	s := err.Error()
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
