package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// stages runs Plan, then review rounds of Implement → Test → Security →
// Review, then Release. A review verdict of partial or not_achieved starts
// another round with what is missing, up to max_rounds.
func (a *attempt) stages(ctx context.Context) error {
	if err := a.stage(ctx, StagePlan, a.planStage); err != nil {
		return err
	}
	rounds := max(a.cfg.MaxRounds, 1)
	for round := 1; ; round++ {
		for _, s := range []struct {
			name string
			fn   func(context.Context) error
		}{
			{StageImplement, a.implementStage}, {StageTest, a.testStage},
			{StageSecurity, a.securityStage}, {StageReview, a.reviewStage},
		} {
			if err := a.stage(ctx, s.name, s.fn); err != nil {
				return err
			}
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
	return a.stage(ctx, StageRelease, a.releaseStage)
}

// stage runs one stage under the attempt's supervision: the checklist shows
// it, its duration is measured, and failures are retried by the stage's
// policy before they end the attempt.
func (a *attempt) stage(ctx context.Context, name string, fn func(context.Context) error) error {
	a.tr.stage(ctx, name, "running", "")
	start := time.Now()
	err := a.supervise(ctx, name, fn)
	result := "done"
	if err != nil {
		result = "failed"
	}
	if a.p.Metrics != nil {
		a.p.Metrics.StageDuration.WithLabelValues(name, result).Observe(time.Since(start).Seconds())
	}
	a.log.Info("stage finished", "stage", name, "result", result, "duration_ms", time.Since(start).Milliseconds(), "err", err)
	if err == nil {
		a.tr.stage(ctx, name, "done", "")
		return nil
	}
	if _, ok := err.(*ending); ok {
		a.tr.stage(ctx, name, "done", "")
		return err
	}
	a.tr.stage(ctx, name, "failed", "")
	return err
}
