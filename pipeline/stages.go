package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// stages runs Plan, then review rounds of Implement → Test → Security →
// Review, then Release. A review verdict of partial or not_achieved starts
// another round with what is missing, up to max_rounds.
func (a *attempt) stages(ctx context.Context) error {
	rounds := max(a.cfg.MaxRounds, 1)
	for round := 1; ; round++ {
		steps := []step{
			{StageImplement, a.implementStage}, {StageTest, a.testStage},
			{StageSecurity, a.securityStage}, {StageReview, a.reviewStage},
		}
		if round == 1 {
			steps = append([]step{{StagePlan, a.firstStage()}}, steps...)
		}
		if err := a.chain(ctx, fmt.Sprintf("pipeline round %d", round), steps); err != nil {
			return err
		}
		if a.review.GoalStatus == "" || a.review.GoalStatus == outcome.GoalAchieved {
			break
		}
		if round >= rounds {
			if a.review.GoalStatus == outcome.GoalNotAchieved {
				return &outcome.Error{Class: outcome.Deterministic, Stage: StageReview,
					Msg: fmt.Sprintf("after %d review rounds the change still does not achieve the issue: %s", round, a.review.Missing)}
			}
			break // partial: keep the best round and say what is missing
		}
		a.missing = a.review.Missing
		a.log.Info("review asked for another round", "round", round+1, "missing", a.missing)
	}
	return a.chain(ctx, "release", []step{{StageRelease, a.releaseStage}})
}

// stage runs one try of a stage: the checklist shows it, its duration is
// measured, and a failure that will be retried shows as running, not failed.
func (a *attempt) stage(ctx context.Context, name string, fn func(context.Context) error, mayRetry bool) error {
	a.absorbGuidance(ctx, name)
	a.tr.stage(ctx, name, "running", "")
	start := time.Now()
	err := a.once(ctx, name, fn)
	result := "done"
	var end *ending
	switch {
	case errors.As(err, &end):
		result = "ended" // a decision (decompose, defer, block), not a failure
	case err != nil:
		result = "failed"
	}
	if a.p.Metrics != nil {
		a.p.Metrics.StageDuration.WithLabelValues(name, result).Observe(time.Since(start).Seconds())
	}
	a.log.Info("stage finished", "stage", name, "result", result, "duration_ms", time.Since(start).Milliseconds(), "err", err)
	bg := context.WithoutCancel(ctx) // a watchdog may have canceled ctx
	switch {
	case err == nil && name == StageTest:
		a.tr.stage(bg, name, "done", a.testsNote())
	case err == nil, errors.As(err, &end):
		a.tr.stage(bg, name, "done", "")
	case mayRetry && retryable(err):
		a.tr.stage(bg, name, "running", "retrying after: "+firstLine(summarize(err)))
	default:
		a.tr.stage(bg, name, "failed", "")
	}
	return err
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
