package environment

import (
	"context"
	"time"

	"github.com/warden-bot/warden/environment/workspace"
)

// BaseWait is the baseline's result, or false when there is none: not run,
// failed to run, or canceled.
func (e *Env) BaseWait(ctx context.Context) (Baseline, bool) {
	if e.bs == nil || e.bs.future == nil {
		return Baseline{}, false
	}
	start := time.Now()
	b, err := e.bs.future.wait(ctx)
	if err != nil {
		e.Log.Warn("no baseline; every failure counts as the change's", "err", err)
		return Baseline{}, false
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		e.Log.Info("waited for the baseline", "stage", StageBaseline, "duration_ms", d.Milliseconds())
	}
	return b, true
}

// BaseForRerun is the base checkout for a re-run there: the one the
// baseline ran in, or a new one when the cache answered. Without one that
// has what `setup:` installed (a cached baseline with a setup command), the
// base re-run is skipped.
func (e *Env) BaseForRerun(ctx context.Context) (*workspace.BaseCopy, bool) {
	e.TestPlan()
	bs := e.bs
	if bs.copy == nil {
		if e.cfg.Setup != "" {
			return nil, false
		}
		bc, err := e.wt.BaseCopy(ctx, false)
		if err != nil {
			e.Log.Warn("no base checkout to re-run on", "err", err)
			return nil, false
		}
		bs.copy = bc
	}
	return bs.copy, true
}

// CloseBaseline ends the attempt's share of the baseline (the last attempt
// sharing it stops it) and removes the base checkout once the baseline,
// which other attempts may be waiting for, has finished.
func (e *Env) CloseBaseline() {
	if e.bs != nil {
		e.bs.close()
	}
}

func (bs *baseState) close() {
	if bs.left || bs.future == nil {
		return
	}
	bs.left = true
	bs.future.leave()
	if bs.copy == nil {
		return
	}
	go func() {
		<-bs.future.done
		bs.copy.Remove(context.Background())
	}()
}
