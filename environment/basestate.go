package environment

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
	left   bool // the attempt left the shared baseline (close)
}

// TestPlan is how the test command runs and is read, test by test.
func (e *Env) TestPlan() testreport.Plan {
	if e.bs == nil {
		e.bs = &baseState{plan: testreport.Instrument(e.cfg.Test)}
	}
	return e.bs.plan
}

// StartBaseline reads the base commit's result from the cache or starts
// running it in a second checkout, concurrently with Plan. A command read
// by its exit status alone must be judged before any model call: a red
// base then blocks the attempt.
func (e *Env) StartBaseline(ctx context.Context) error {
	if prev := e.bs; prev != nil { // a fresh start after a corrupt worktree
		e.bs = nil
		defer prev.close() // after the new one joined: the same base keeps running
	}
	if e.cfg.Test == "" || e.Workspace == nil {
		return nil
	}
	e.bs = &baseState{plan: testreport.Instrument(e.cfg.Test)}
	if !e.cfg.Baseline {
		return nil
	}
	key := baselineKey(e.Repo, e.wt.BaseSHA, e.cfg.Test)
	cache := baselineCache{dir: filepath.Join(e.Workspace.Dir(), "baselines")}
	if b, ok := cache.get(key, time.Now()); ok {
		e.bs.future = cachedFuture(b)
		e.Log.Info("baseline cached", "stage", StageBaseline, "base", b.Base, "failed", len(b.Failed))
	} else if err := e.leadOrJoin(ctx, key, cache); err != nil {
		e.Log.Warn("baseline not started; every failure counts as the change's", "err", err)
	}
	if e.bs.plan.Kind == testreport.Status && e.bs.future != nil {
		return e.redBase(ctx)
	}
	return nil
}

// leadOrJoin joins the baseline another task on the same base is running,
// or checks the base out and runs it. With `setup:`, what setup installed
// in the worktree is copied now, before any model edit can add to it.
func (e *Env) leadOrJoin(ctx context.Context, key string, cache baselineCache) error {
	f, leader := join(key)
	e.bs.future = f
	if !leader {
		return nil
	}
	bc, err := e.wt.BaseCopy(ctx, e.cfg.Setup != "")
	if err != nil {
		f.finish(Baseline{}, err)
		return err
	}
	e.bs.copy = bc
	// A fresh start may replace e.bs and e.cfg meanwhile: the run reads a
	// snapshot, which keeps its connections off the attempt's record (they
	// still reach `bot observe`) and its command off the transcript.
	plan := e.bs.plan
	snap := &Env{Workspace: e.Workspace, Log: e.Log, Repo: e.Repo, Hooks: Hooks{Egress: e.Hooks.Egress}, Mirrors: e.Mirrors,
		cfg: e.cfg, plan: e.plan, root: e.root, wt: e.wt}
	f.start(ctx, func(ctx context.Context) (Baseline, error) {
		b, err := snap.runBaseline(ctx, bc, plan)
		if err == nil {
			if perr := cache.put(key, b); perr != nil {
				snap.Log.Warn("baseline not cached", "err", perr)
			}
		}
		return b, err
	})
	return nil
}

// redBase ends the attempt blocked when a command read by its exit status
// alone already fails on the base: Warden could not tell the change's
// failures from the base's, and a model must not be sent after them.
func (e *Env) redBase(ctx context.Context) error {
	b, err := e.bs.future.wait(ctx)
	if err != nil || len(b.Failed) == 0 {
		return nil
	}
	if e.plan.Inferred {
		// Warden's own guess at the command, not the maintainer's: the
		// failure stays the model's, as it was before the baseline.
		e.Log.Info("the inferred test command fails on the base; its failures go to the model", "stage", StageBaseline, "base", b.Base)
		return nil
	}
	branch := e.Branch
	if branch == "" {
		branch = "main"
	}
	detail := fmt.Sprintf("The test command `%s` already fails on `%s` at %s, before any change, and its output does not name tests, so Warden cannot tell a failure of its own from one already there.", e.cfg.Test, branch, shortSHA(b.Base))
	e.quote(b.Output, "Test output on "+branch)
	return &Blocked{Record: outcome.Record{
		Outcome: outcome.Blocked, FailureClass: outcome.TestFailure, Summary: detail,
		Obstacle:       outcome.Obstacle{Kind: "red_base", Detail: detail},
		Recommendation: fmt.Sprintf("Make `%s` green, or set `test:` in .github/warden.yml to a command that passes there or that Warden reads test by test (a plain `go test …`, `node --test …`, `pytest …`, `jest …`, `vitest run …`, `cargo test`, Maven or Gradle); then `/%s retry`.", branch, e.Prefix),
		Tests:          &outcome.Tests{Base: b.Base, Command: e.cfg.Test, PreExisting: b.Failed},
	}}
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
