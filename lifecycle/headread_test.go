package lifecycle

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/warden-bot/warden/jobs"
)

// suiteOf adds a suite of the App slug/name holding a check run of that
// name, as GitHub lists both.
func (g *gateGH) suiteOf(slug, name, run, conclusion string) {
	g.run(run, "completed", conclusion)
	g.suite("completed", conclusion)
	s := g.suites[len(g.suites)-1].(map[string]any)
	s["app"] = map[string]any{"slug": slug, "name": name}
	r := g.runs[len(g.runs)-1].(map[string]any)
	r["app"], r["check_suite"] = map[string]any{"slug": slug, "name": name}, map[string]any{"id": s["id"]}
}

func (g *gateGH) called(prefix string) int {
	n := 0
	for _, p := range g.paths {
		if strings.HasPrefix(p, prefix) {
			n++
		}
	}
	return n
}

// Warden's own checks are still not CI when read through GraphQL, whose
// Bot logins lack REST's "[bot]"; look-alikes of Warden still are CI, and
// a forged warden/mode still is not. Each case is judged from the head
// query alone (no REST listing is read).
func TestOwnChecksUnderGraphQLShapes(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(g *gateGH)
		merged bool
	}{
		{"Warden's own status on another context", func(g *gateGH) { g.status("warden/extra", "success", gateBot) }, false},
		{"warden/mode from someone else", func(g *gateGH) { g.status("warden/mode", "success", "mallory") }, false},
		{"a person whose login is Warden's slug", func(g *gateGH) { g.status("ci", "success", strings.TrimSuffix(gateBot, "[bot]")) }, true},
		{"Warden's own check run", func(g *gateGH) { g.suiteOf("warden-test", "Warden", "warden", "success") }, false},
		{"another App named like Warden", func(g *gateGH) { g.suiteOf("warden-test-ci", "warden-test", "warden", "success") }, true},
		{"another App's failure beside Warden's success", func(g *gateGH) {
			g.suiteOf("warden-test", "Warden", "warden", "success")
			g.suiteOf("wardentest", "Warden", "ci", "failure")
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateGH(t)
			tc.setup(g)
			all := g.evaluate(t, g.lifecycle())
			if g.merged != tc.merged {
				t.Errorf("merged = %v, want %v: %q", g.merged, tc.merged, all)
			}
			if g.gql.queries != 1 || g.called("GET /commits/") != 0 || g.called("GET /contents/") != 0 {
				t.Errorf("%d head queries, REST reads %q", g.gql.queries, g.paths)
			}
			if !tc.merged && !strings.Contains(all, "no CI has reported") && !strings.Contains(all, "CI failed") {
				t.Errorf("not said why: %q", all)
			}
		})
	}
}

// A head whose runs do not fit one page of the query is judged from
// REST's listings, every page: a failure on run 121 of 150 is found.
func TestPagedHeadQueryFallsBackToREST(t *testing.T) {
	g := newGateGH(t)
	for i := range 150 {
		c := "success"
		if i == 120 {
			c = "failure"
		}
		g.run(fmt.Sprintf("shard-%d", i), "completed", c)
	}
	all := g.evaluate(t, g.lifecycle())
	if g.merged || !strings.Contains(all, `check run "shard-120" concluded failure`) {
		t.Fatalf("merged=%v comments=%q", g.merged, all)
	}
	runs := slices.Index(g.paths, "GET /commits/"+gateHead+"/check-runs")
	if g.gql.queries != 1 || runs < 0 || g.called("GET /commits/"+gateHead+"/check-suites") == 0 || g.called("GET /commits/"+gateHead+"/statuses") == 0 {
		t.Fatalf("head queries %d, calls %q: want the query, then every REST listing", g.gql.queries, g.paths)
	}
}

// The configuration: absent means the defaults (no REST read); a cut or
// binary blob is read over REST as before; a directory there too.
func TestConfigFromTheHeadQuery(t *testing.T) {
	off := "maintenance: {auto_merge: false}\n"
	cases := []struct {
		name   string
		object any
		rest   string // what REST's contents read answers; "" 404
		merged bool
		reads  int // REST contents reads
	}{
		{"absent", nil, "", true, 0},
		{"from the blob", map[string]any{"__typename": "Blob", "text": off, "isTruncated": false}, "", false, 0},
		{"truncated: REST's copy decides", map[string]any{"__typename": "Blob", "text": "maintenance: {auto_merge: true}\n", "isTruncated": true}, off, false, 1},
		{"binary: REST's copy decides", map[string]any{"__typename": "Blob", "text": nil, "isTruncated": false}, off, false, 1},
		{"a directory: REST answers", map[string]any{"__typename": "Tree"}, "", true, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateGH(t)
			g.run("ci", "completed", "success")
			g.gql.config, g.rules.config = tc.object, tc.rest
			if tc.object == nil {
				g.gql.config = (map[string]any)(nil) // null, not "from rules.config"
			}
			all := g.evaluate(t, g.lifecycle())
			if g.merged != tc.merged || (!tc.merged && !strings.Contains(all, "auto_merge` is off")) {
				t.Errorf("merged = %v, want %v: %q", g.merged, tc.merged, all)
			}
			if n := g.called("GET /contents/"); n != tc.reads {
				t.Errorf("%d REST reads of the config, want %d: %q", n, tc.reads, g.paths)
			}
		})
	}
}

// An answer with GraphQL errors is not judged: REST's reads decide (a red
// run there is found), and a REST error then fails the evaluation as
// before (it is retried); nothing merges on a partial read.
func TestHeadQueryErrorFallsBackToRESTAndFailsClosed(t *testing.T) {
	partial := `{"data":{"repository":{"config":null,"head":{"checkSuites":{"pageInfo":{"hasNextPage":false},"nodes":[]},"status":null}}},` +
		`"errors":[{"type":"FORBIDDEN","path":["repository","head","checkSuites","nodes",0,"app"],"message":"Resource not accessible by integration"}]}`
	g := newGateGH(t)
	g.run("ci", "completed", "failure")
	g.rules.config = "maintenance: {auto_merge: true}\n"
	g.gql.errors = partial
	all := g.evaluate(t, g.lifecycle())
	if g.merged || !strings.Contains(all, `check run "ci" concluded failure`) || g.called("GET /commits/"+gateHead+"/check-runs") != 1 || g.called("GET /contents/") != 1 {
		t.Fatalf("merged=%v comments=%q calls %q", g.merged, all, g.paths)
	}

	g = newGateGH(t)
	g.run("ci", "completed", "success")
	g.gql.errors = `{"data":null,"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded"}]}`
	g.rest500 = "/check-runs"
	err := g.lifecycle().PR(context.Background(), jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: 3, SHA: gateHead, Action: "checks"})
	if err == nil || g.merged || g.mergeCalls() != 0 {
		t.Fatalf("err = %v, merged = %v", err, g.merged)
	}
}
