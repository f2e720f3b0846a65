package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/warden-bot/warden/environment/testreport"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
)

// baseState is an attempt's baseline: the plan its test runs follow, the
// base result being run or read from the cache, and the base checkout
// while one exists.
type baseState struct {
	plan   testreport.Plan
	future *baseFuture
	copy   *workspace.BaseCopy
}

// startBaseline reads the base commit's result from the cache or starts
// running it in a second checkout, concurrently with Plan. A command read
// by its exit status alone must be judged before any model call: a red
// base then blocks the attempt.
func (a *attempt) startBaseline(ctx context.Context) error {
	if a.bs != nil { // a fresh start after a corrupt worktree
		a.closeBaseline()
		a.bs = nil
	}
	if a.cfg.Test == "" || a.p.Workspace == nil {
		return nil
	}
	a.bs = &baseState{plan: testreport.Instrument(a.cfg.Test)}
	if !a.cfg.Baseline {
		return nil
	}
	key := baselineKey(a.t.Repo, a.wt.BaseSHA, a.cfg.Test)
	cache := baselineCache{dir: filepath.Join(a.p.Workspace.Dir(), "baselines")}
	if b, ok := cache.get(key, time.Now()); ok {
		a.bs.future = &baseFuture{done: make(chan struct{}), res: b}
		close(a.bs.future.done)
		a.log.Info("baseline cached", "stage", StageBaseline, "base", b.Base, "failed", len(b.Failed))
	} else if err := a.leadOrJoin(ctx, key, cache); err != nil {
		a.log.Warn("baseline not started; every failure counts as the change's", "err", err)
	}
	if a.bs.plan.Kind == testreport.Status && a.bs.future != nil {
		return a.redBase(ctx)
	}
	return nil
}

// leadOrJoin joins the baseline another task on the same base is running,
// or checks the base out and runs it. With `setup:`, what setup installed
// in the worktree is copied now, before any model edit can add to it.
func (a *attempt) leadOrJoin(ctx context.Context, key string, cache baselineCache) error {
	f, leader := join(key)
	a.bs.future = f
	if !leader {
		return nil
	}
	bc, err := a.wt.BaseCopy(ctx, a.cfg.Setup != "")
	if err != nil {
		f.finish(key, baseline{}, err)
		return err
	}
	a.bs.copy = bc
	// A fresh start may replace a.bs and a.cfg meanwhile: the run reads a snapshot.
	plan := a.bs.plan
	snap := &attempt{p: a.p, t: a.t, log: a.log, cfg: a.cfg, root: a.root, wt: a.wt}
	go func() {
		b, err := snap.runBaseline(ctx, bc, plan)
		if err == nil {
			if perr := cache.put(key, b); perr != nil {
				snap.log.Warn("baseline not cached", "err", perr)
			}
		}
		f.finish(key, b, err)
	}()
	return nil
}

// redBase ends the attempt blocked when a command read by its exit status
// alone already fails on the base: Warden could not tell the change's
// failures from the base's, and a model must not be sent after them.
func (a *attempt) redBase(ctx context.Context) error {
	b, err := a.bs.future.wait(ctx)
	if err != nil || len(b.Failed) == 0 {
		return nil
	}
	if a.cmds.Inferred {
		// Warden's own guess at the command, not the maintainer's: the
		// failure stays the model's, as it was before the baseline.
		a.log.Info("the inferred test command fails on the base; its failures go to the model", "stage", StageBaseline, "base", b.Base)
		return nil
	}
	branch := a.t.DefaultBranch
	if branch == "" {
		branch = "main"
	}
	detail := fmt.Sprintf("The test command `%s` already fails on `%s` at %s, before any change, and its output does not name tests, so Warden cannot tell a failure of its own from one already there.", a.cfg.Test, branch, shortSHA(b.Base))
	a.output, a.outTitle = b.Output, "Test output on "+branch
	return &ending{rec: outcome.Record{
		Outcome: outcome.Blocked, FailureClass: outcome.TestFailure, Summary: detail,
		Obstacle:       outcome.Obstacle{Kind: "red_base", Detail: detail},
		Recommendation: fmt.Sprintf("Make `%s` green, or set `test:` in .github/warden.yml to a command that passes there or that Warden reads test by test (a plain `go test …`, `node --test …`, `pytest …`, `jest …`, `vitest run …`, `cargo test`, Maven or Gradle); then `/%s retry`.", branch, a.p.Prefix),
		Tests:          &outcome.Tests{Base: b.Base, Command: a.cfg.Test, PreExisting: b.Failed},
	}}
}

// baseWait is the baseline's result, or false when there is none: not run,
// failed to run, or canceled.
func (a *attempt) baseWait(ctx context.Context) (baseline, bool) {
	if a.bs == nil || a.bs.future == nil {
		return baseline{}, false
	}
	start := time.Now()
	b, err := a.bs.future.wait(ctx)
	if err != nil {
		a.log.Warn("no baseline; every failure counts as the change's", "err", err)
		return baseline{}, false
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		a.log.Info("waited for the baseline", "stage", StageBaseline, "duration_ms", d.Milliseconds())
	}
	return b, true
}

// closeBaseline removes the base checkout once the baseline, which other
// tasks may be waiting for, has finished.
func (a *attempt) closeBaseline() {
	bs := a.bs
	if bs == nil || bs.copy == nil {
		return
	}
	go func() {
		<-bs.future.done
		bs.copy.Remove(context.Background())
	}()
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
