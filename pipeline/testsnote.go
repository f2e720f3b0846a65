package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/outcome"
)

// testsRecord is the outcome record's tests section, when a baseline was
// read for the last test run.
func (a *attempt) testsRecord() *outcome.Tests {
	v := a.tests
	if v == nil || !v.hasBase {
		return nil
	}
	return &outcome.Tests{Base: v.base.Base, Command: a.cfg.Test, PreExisting: v.pre, Flaky: v.flaky,
		Caused: v.theirs(), FixedUnrelated: v.fixedOther}
}

// testsNote is what the PR body and the status comment say about failures
// that were not the change's, or "" when there were none.
func (a *attempt) testsNote() string {
	v := a.tests
	if v == nil || !v.hasBase {
		return ""
	}
	branch := a.t.DefaultBranch
	if branch == "" {
		branch = "main"
	}
	var parts []string
	if n := len(v.pre); n > 0 {
		parts = append(parts, fmt.Sprintf("%s already %s on `%s`; not caused by this change: %s.", plural(n, "test"), verb(n, "fails", "fail"), branch, names(v.pre)))
	}
	var fresh, known []string
	for _, id := range v.flaky {
		if a.knownFlaky[id] {
			known = append(known, id)
		} else {
			fresh = append(fresh, id)
		}
	}
	if n := len(fresh); n > 0 {
		parts = append(parts, fmt.Sprintf("%s failed and then passed on a re-run (flaky); not handed to the model: %s.", plural(n, "test"), names(fresh)))
	}
	if n := len(known); n > 0 { // reported in full on the repository's first task that met them
		parts = append(parts, fmt.Sprintf("%s known to be flaky here failed and passed on a re-run.", plural(n, "test")))
	}
	if n := len(v.fixedOther); n > 0 {
		parts = append(parts, fmt.Sprintf("%s that %s on `%s` %s now, though the issue is not about %s: check that this change meant to; it is not counted as the fix: %s.",
			plural(n, "test"), verb(n, "fails", "fail"), branch, verb(n, "passes", "pass"), verb(n, "it", "them"), names(v.fixedOther)))
	}
	return strings.Join(parts, " ")
}

// countFlaky feeds each flaky test's fingerprint to the breaker's counter
// per repository, not per issue: a test flaking on every task is logged as
// new once, then known.
func (a *attempt) countFlaky(ctx context.Context, flaky []string) {
	if a.p.Counter == nil {
		return
	}
	for _, id := range flaky {
		fp := outcome.Fingerprint(StageTest, outcome.Flaky, id)
		n, err := a.p.Counter.Incr(context.WithoutCancel(ctx), a.t.Repo+":flaky:"+fp)
		if err != nil {
			a.log.Warn("flaky test not counted", "err", err)
			continue
		}
		if n == 1 {
			a.log.Warn("new flaky test", "test", id, "fingerprint", fp)
		} else {
			if a.knownFlaky == nil {
				a.knownFlaky = map[string]bool{}
			}
			a.knownFlaky[id] = true
			a.log.Info("known flaky test", "test", id, "fingerprint", fp, "count", n)
		}
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// names lists test ids as code, at most ten.
func names(ids []string) string {
	var q []string
	for i, id := range ids {
		if i == 10 {
			q = append(q, fmt.Sprintf("and %d more", len(ids)-10))
			break
		}
		q = append(q, "`"+strings.ReplaceAll(id, "`", "'")+"`")
	}
	return strings.Join(q, ", ")
}
