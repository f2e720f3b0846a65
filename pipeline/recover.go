package pipeline

import (
	"context"
	"errors"
	"time"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/supervisor"
)

// supervised runs the stages under the attempt's one_for_all supervisor:
// when git says the worktree is corrupt, nothing built on it can be
// trusted, so the attempt starts over from Plan on a fresh worktree, once.
// Every other ending is final for this supervisor.
func (a *attempt) supervised(ctx context.Context) error {
	var final error
	starts := 0
	sup := supervisor.New(supervisor.Spec{
		Name: "attempt", Strategy: supervisor.OneForAll, AutoShutdown: supervisor.AnySignificant,
		Intensity: 1, Period: 24 * time.Hour, OnEvent: a.event,
	}, supervisor.ChildSpec{
		Name: "stages", Restart: supervisor.Transient, Significant: true,
		Start: func(ctx context.Context) error {
			if starts++; starts > 1 {
				a.log.Warn("worktree corrupt; starting over from Plan on a fresh worktree")
				if err := a.prepare(ctx); err != nil {
					final = err
					return supervisor.Shutdown(err)
				}
				a.plan, a.files, a.review, a.missing = agent.Plan{}, nil, agent.Review{}, ""
			}
			err := a.stages(ctx)
			if workspace.Corrupt(err) && !errors.Is(context.Cause(ctx), supervisor.ErrShutdown) {
				return err // abnormal exit: the supervisor restarts the whole pipeline
			}
			final = err
			if err == nil {
				return nil
			}
			return supervisor.Shutdown(err)
		},
	})
	err := sup.Run(ctx)
	if final != nil || err == nil || supervisor.IsShutdown(err) {
		return final
	}
	return err // corrupt twice (intensity exceeded), or the attempt's context ended
}
