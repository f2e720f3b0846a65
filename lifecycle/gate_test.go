package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/jobs"
)

// The merge gate over GitHub's real object shapes: a head merges only when
// someone other than Warden reported CI on it and everything there — every
// page of check runs and statuses, every suite — passed (issue 17: the old
// gate started at green, read one page, and merged heads without CI).
func TestMergeGate(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(g *gateGH)
		action string
		sha    string
		merged bool
		note   string // in the status comment when not merged
		failed bool   // "CI failed" reported on the issue
	}{
		{name: "one passing check run", merged: true, setup: func(g *gateGH) {
			g.run("ci", "completed", "success")
			g.suite("completed", "success")
		}},
		{name: "another CI's status only", merged: true, setup: func(g *gateGH) {
			g.status("ci/circleci", "success", "circleci")
			g.status("warden/mode", "success", gateBot)
		}},
		{name: "zero CI", note: "no CI has reported on this head"},
		{name: "only skipped and neutral checks", note: "skipped or neutral alone is not CI", setup: func(g *gateGH) {
			g.run("deploy", "completed", "skipped")
			g.run("lint", "completed", "neutral")
			g.suite("completed", "success")
		}},
		{name: "only Warden's own status", note: "no CI has reported on this head", setup: func(g *gateGH) {
			g.status("warden/mode", "success", gateBot)
		}},
		{name: "warden/mode forged by someone else", note: "no CI has reported on this head", setup: func(g *gateGH) {
			g.status("warden/mode", "success", "mallory")
		}},
		{name: "failing run on the second page of 150", failed: true, setup: func(g *gateGH) {
			for i := range 150 {
				c := "success"
				if i == 120 {
					c = "failure"
				}
				g.run(fmt.Sprintf("shard-%d", i), "completed", c)
			}
		}},
		{name: "running run on the second page of 150", setup: func(g *gateGH) {
			for i := range 150 {
				if i == 140 {
					g.run("slow", "in_progress", "")
					continue
				}
				g.run(fmt.Sprintf("shard-%d", i), "completed", "success")
			}
		}},
		{name: "one failing status among many, past the first page", failed: true, setup: func(g *gateGH) {
			g.status("lint", "failure", "ci-bot")
			for i := range 120 {
				g.status(fmt.Sprintf("ci/%d", i), "success", "ci-bot")
			}
		}},
		{name: "a newer success replaces an older failure", merged: true, setup: func(g *gateGH) {
			g.status("ci/test", "failure", "ci-bot")
			g.status("ci/test", "success", "ci-bot")
		}},
		{name: "a suite still queued", setup: func(g *gateGH) {
			g.run("ci", "completed", "success")
			g.run("e2e", "completed", "success") // the suite has not caught up with its run
			g.suiteAt("queued", time.Now().Add(-time.Hour), "e2e")
		}},
		{name: "a suite just opened, its CI yet to add a run", note: "with no check run yet", setup: func(g *gateGH) {
			g.run("ci", "completed", "success")
			g.suiteAt("queued", time.Now().Add(-time.Minute))
		}},
		{name: "a suite queued without a run for longer than idleSuite: an app that never reports", merged: true, setup: func(g *gateGH) {
			g.run("ci", "completed", "success")
			g.suiteAt("queued", time.Now().Add(-idleSuite-time.Minute))
		}},
		{name: "only an idle suite is no CI", note: "no CI has reported on this head", setup: func(g *gateGH) {
			g.suiteAt("queued", time.Now().Add(-idleSuite-time.Minute))
		}},
		{name: "a failed suite", failed: true, setup: func(g *gateGH) {
			g.run("ci", "completed", "success")
			g.suite("completed", "failure")
		}},
		{name: "a pending status", setup: func(g *gateGH) {
			g.run("ci", "completed", "success")
			g.status("ci/deploy-preview", "pending", "ci-bot")
		}},
		{name: "green check event for an old head", sha: "0000000000000000000000000000000000000001", setup: func(g *gateGH) {
			g.run("ci", "completed", "success")
		}},
		{name: "a status event, the PR on the second page of open PRs", action: "status", merged: true, setup: func(g *gateGH) {
			g.status("ci/circleci", "success", "circleci")
		}},
		{name: "synchronize after Warden's push, before CI registers", action: "sync", note: "no CI has reported on this head", setup: func(g *gateGH) {
			g.status("warden/mode", "success", gateBot)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateGH(t)
			if tc.setup != nil {
				tc.setup(g)
			}
			action, sha := "checks", gateHead
			if tc.action != "" {
				action = tc.action
			}
			if tc.sha != "" {
				sha = tc.sha
			}
			pr := 3
			if action == "status" {
				pr = 0 // a status event names a commit, not a PR
			}
			err := g.lifecycle().PR(context.Background(), jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: pr, SHA: sha, Action: action})
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(g.comments, "\n")
			if g.merged != tc.merged {
				t.Errorf("merged = %v, want %v (comments: %q)", g.merged, tc.merged, all)
			}
			if tc.note != "" && !strings.Contains(all, tc.note) {
				t.Errorf("status comment does not say why: %q", all)
			}
			if got := strings.Contains(all, "CI failed"); got != tc.failed {
				t.Errorf("CI failure reported = %v, want %v: %q", got, tc.failed, all)
			}
		})
	}
}

// The note is written once, into the status comment, and cleared on merge.
func TestMergeNoteLivesInTheStatusComment(t *testing.T) {
	g := newGateGH(t)
	g.comments = []string{"<!-- warden:status -->\n### Warden: Pull request open\n\n- ✅ Test — done\n"}
	l := g.lifecycle()
	p := jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: 3, SHA: gateHead, Action: "checks"}
	for range 2 {
		if err := l.PR(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if len(g.comments) != 1 || !strings.Contains(g.comments[0], "✅ Test — done") || strings.Count(g.comments[0], "no CI has reported") != 1 {
		t.Fatalf("status comment = %q", g.comments)
	}
	g.run("ci", "completed", "success")
	if err := l.PR(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if !g.merged || strings.Contains(g.comments[0], "no CI has reported") || !strings.Contains(g.comments[0], "✅ Test — done") {
		t.Fatalf("after green CI: merged=%v comment=%q", g.merged, g.comments[0])
	}
}
