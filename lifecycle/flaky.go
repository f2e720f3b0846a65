package lifecycle

import (
	"context"
	"log/slog"
	"regexp"
	"strings"

	"github.com/google/go-github/v60/github"
)

// failedTestRE finds failing test names in a check run's output: Go's
// `--- FAIL: TestX`, TAP's `not ok 3 - name`, node's spec `✖ name (1ms)`,
// pytest's `FAILED path::name`.
var failedTestRE = regexp.MustCompile(`(?m)--- FAIL: (\S+)|^\s*not ok \d+ - (.+?)\s*(?:#.*)?$|^\s*✖ (.+?) \([\d.]+m?s\)|^FAILED (\S+)`)

// failedTests are the test names a check run's output says failed.
func failedTests(run *github.CheckRun) []string {
	o := run.GetOutput()
	text := o.GetTitle() + "\n" + o.GetSummary() + "\n" + o.GetText()
	var out []string
	for _, m := range failedTestRE.FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if g != "" {
				name, _, _ := strings.Cut(g, "/") // a subtest fails its parent
				out = append(out, name)
			}
		}
	}
	return out
}

// flakyOnly reports whether the head is red only on tests an attempt on the
// issue found flaky: every failed check run names its failing tests, each
// one flaky, and no other check (a status, a suite without runs) failed.
// Anything Warden cannot read stays red.
func (ci headCI) flakyOnly(bot string, flaky []string) bool {
	if len(flaky) == 0 {
		return false
	}
	known := map[string]bool{}
	for _, id := range flaky {
		known[leaf(id)] = true
	}
	red := 0
	for _, r := range ci.runs {
		if appBot(r.GetApp()) == bot || r.GetStatus() != "completed" || okConclusion(r.GetConclusion()) {
			continue
		}
		red++
		names := failedTests(r)
		if len(names) == 0 {
			return false
		}
		for _, n := range names {
			if !known[n] {
				return false
			}
		}
	}
	for _, s := range ci.statuses {
		if st := s.GetState(); s.GetCreator().GetLogin() != bot && (st == "failure" || st == "error") {
			return false
		}
	}
	return red > 0
}

// leaf is a test id's own name: "<package> TestX" → TestX, "suite > name" → name.
func leaf(id string) string {
	if i := strings.LastIndex(id, " > "); i >= 0 {
		return id[i+3:]
	}
	if i := strings.LastIndex(id, " "); i >= 0 {
		return id[i+1:]
	}
	return id
}

// flakyMerge reports whether a red head may merge anyway: the repository
// opted in (`flaky: {merge: true}`) and its CI failed only on tests an
// attempt on the issue marked flaky.
func (l *Lifecycle) flakyMerge(ctx context.Context, c *github.Client, x *pr, bot string, log *slog.Logger) bool {
	ci, err := readCI(ctx, c, x.owner, x.name, x.GetHead().GetSHA())
	if err != nil {
		log.Warn("CI not re-read for flaky tests", "err", err)
		return false
	}
	h, err := l.issueHost(ctx, c, x)
	if err != nil {
		log.Warn("issue not read for flaky tests", "err", err)
		return false
	}
	recs, err := h.PriorOutcomes(ctx)
	if err != nil {
		log.Warn("outcomes not read for flaky tests", "err", err)
		return false
	}
	var flaky []string
	for _, r := range recs {
		if r.Tests != nil {
			flaky = append(flaky, r.Tests.Flaky...)
		}
	}
	ok := ci.flakyOnly(bot, flaky)
	if ok {
		log.Info("CI failed only on tests marked flaky; flaky.merge lets the PR merge", "flaky", flaky)
	}
	return ok
}
