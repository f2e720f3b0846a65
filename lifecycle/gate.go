package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/pipeline"
)

// verdict of a head's checks.
type verdict int

const (
	green verdict = iota
	waiting
	red
)

// maxPages bounds each listing (100 a page): far past any real head, and a
// misbehaving API cannot keep the worker paging forever.
const maxPages = 50

// noCI is why a head without anyone else's check waits. Warden's own
// warden/mode says nothing about the code, so it never counts as CI.
const noCI = "no CI has reported on this head: Warden merges only after at least one check run or commit status " +
	"other than its own has passed, so this PR waits for a maintainer (or for CI to report)"

// onlySkipped is why a head whose only other checks were skipped or neutral
// waits: nothing ran the code, so it is not CI.
const onlySkipped = "no check other than Warden's has concluded success on this head (skipped or neutral alone is not CI), " +
	"so this PR waits for CI to pass (or for a maintainer)"

// headCI is everything GitHub knows about a head's CI, read across every page.
type headCI struct {
	suites   []*github.CheckSuite
	runs     []*github.CheckRun
	statuses []*github.RepoStatus // the newest of each context
}

// readCI lists every check suite, check run and commit status on sha.
func readCI(ctx context.Context, c *github.Client, owner, name, sha string) (headCI, error) {
	var ci headCI
	so := &github.ListCheckSuiteOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for range maxPages {
		got, resp, err := c.Checks.ListCheckSuitesForRef(ctx, owner, name, sha, so)
		if err != nil {
			return ci, fmt.Errorf("check suites of %s: %w", sha, err)
		}
		ci.suites = append(ci.suites, got.CheckSuites...)
		if so.Page = resp.NextPage; so.Page == 0 {
			break
		}
	}
	ro := &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for range maxPages {
		got, resp, err := c.Checks.ListCheckRunsForRef(ctx, owner, name, sha, ro)
		if err != nil {
			return ci, fmt.Errorf("check runs of %s: %w", sha, err)
		}
		ci.runs = append(ci.runs, got.CheckRuns...)
		if ro.Page = resp.NextPage; ro.Page == 0 {
			break
		}
	}
	// The statuses listing, unlike the combined view, names each creator;
	// it is newest first, so the first of a context is its current state.
	seen := map[string]bool{}
	lo := &github.ListOptions{PerPage: 100}
	for range maxPages {
		got, resp, err := c.Repositories.ListStatuses(ctx, owner, name, sha, lo)
		if err != nil {
			return ci, fmt.Errorf("statuses of %s: %w", sha, err)
		}
		for _, s := range got {
			if !seen[s.GetContext()] {
				seen[s.GetContext()] = true
				ci.statuses = append(ci.statuses, s)
			}
		}
		if lo.Page = resp.NextPage; lo.Page == 0 {
			break
		}
	}
	return ci, nil
}

// judge applies the merge rule: any check run, status or suite that failed
// is red; anything still running, or no check but Warden's own, is
// waiting; only then green. Runs come first: they name what failed.
func (ci headCI) judge(bot string, now time.Time) (verdict, string) {
	v, why, others, passed := green, "", 0, 0
	wait := func(w string) {
		if v == green {
			v, why = waiting, w
		}
	}
	for _, r := range ci.runs {
		if appBot(r.GetApp()) == bot {
			continue
		}
		others++
		switch {
		case r.GetStatus() != "completed":
			wait(r.GetName() + " is " + r.GetStatus())
		case !okConclusion(r.GetConclusion()):
			return red, fmt.Sprintf("check run %q concluded %s", r.GetName(), r.GetConclusion())
		case r.GetConclusion() == "success":
			passed++
		}
	}
	for _, s := range ci.statuses {
		if s.GetCreator().GetLogin() == bot || s.GetContext() == pipeline.ModeContext {
			continue // Warden's own word, or someone forging it: not CI
		}
		others++
		switch s.GetState() {
		case "success":
			passed++
		case "failure", "error":
			return red, fmt.Sprintf("status %q is %s: %s", s.GetContext(), s.GetState(), s.GetDescription())
		default:
			wait(s.GetContext() + " is " + s.GetState())
		}
	}
	for _, s := range ci.suites {
		if appBot(s.GetApp()) == bot {
			continue
		}
		switch {
		case ci.idle(s):
			if created := s.GetCreatedAt(); !created.IsZero() && now.Sub(created.Time) >= idleSuite {
				continue // an app that never reports here, not CI that has yet to start
			}
			wait(fmt.Sprintf("check suite of %s is %s with no check run yet (a suite that stays so %v after it was created is passed over: some apps never report)",
				appName(s.GetApp()), s.GetStatus(), idleSuite))
		case s.GetStatus() != "completed":
			wait(fmt.Sprintf("check suite of %s is %s", appName(s.GetApp()), s.GetStatus()))
		case !okConclusion(s.GetConclusion()):
			return red, fmt.Sprintf("check suite of %s concluded %s", appName(s.GetApp()), s.GetConclusion())
		}
	}
	if others == 0 {
		return waiting, noCI
	}
	if v == green && passed == 0 {
		return waiting, onlySkipped
	}
	return v, why
}

// contexts maps every check run name and status context on the head,
// Warden's own included (a rule may require warden/mode), to the state a
// required check has: success (neutral and skipped pass, as on GitHub),
// pending or failure.
func (ci headCI) contexts() map[string]string {
	out := map[string]string{}
	for _, r := range ci.runs {
		switch {
		case r.GetStatus() != "completed":
			out[r.GetName()] = "pending"
		case okConclusion(r.GetConclusion()):
			out[r.GetName()] = "success"
		default:
			out[r.GetName()] = "failure"
		}
	}
	for _, s := range ci.statuses {
		switch s.GetState() {
		case "success":
			out[s.GetContext()] = "success"
		case "failure", "error":
			out[s.GetContext()] = "failure"
		default:
			out[s.GetContext()] = "pending"
		}
	}
	return out
}

// idleSuite is how long a check suite may stay queued without a single
// check run before it no longer holds a merge back: GitHub opens a suite on
// every push for each App that may write checks, and some (Codecov,
// Mergify and others) never add a run to it, which would hold every PR
// forever. CI that has only yet to start is younger than this.
const idleSuite = 10 * time.Minute

// idle reports whether s has not started and holds no check run on the head.
func (ci headCI) idle(s *github.CheckSuite) bool {
	if s.GetStatus() != "queued" {
		return false
	}
	for _, r := range ci.runs {
		if r.GetCheckSuite().GetID() == s.GetID() {
			return false
		}
	}
	return true
}

// idleUntil is when the youngest idle suite of another App will be passed
// over (zero when none waits so): a look then finds the merge unblocked,
// which no event would announce.
func (ci headCI) idleUntil(bot string, now time.Time) time.Time {
	var until time.Time
	for _, s := range ci.suites {
		if appBot(s.GetApp()) == bot || !ci.idle(s) || s.GetCreatedAt().IsZero() {
			continue
		}
		if t := s.GetCreatedAt().Add(idleSuite); t.After(now) && t.After(until) {
			until = t
		}
	}
	return until
}

// headChecks judges the CI of x's head the query read, listed again over
// REST when a listing there had a further page (correct beats clever).
func headChecks(ctx context.Context, c *github.Client, x *pr, ci headCI, complete bool, bot string) (verdict, string, headCI, error) {
	if !complete {
		var err error
		if ci, err = readCI(ctx, c, x.owner, x.name, x.GetHead().GetSHA()); err != nil {
			return waiting, "", ci, err
		}
	}
	v, why := ci.judge(bot, time.Now())
	return v, why, ci, nil
}

func okConclusion(c string) bool { return c == "success" || c == "neutral" || c == "skipped" }

// appBot is the login an App acts as ("<slug>[bot]"), or "".
func appBot(a *github.App) string {
	if a.GetSlug() == "" {
		return ""
	}
	return a.GetSlug() + "[bot]"
}

func appName(a *github.App) string {
	if n := strings.TrimSpace(a.GetName()); n != "" {
		return n
	}
	return "an app"
}
