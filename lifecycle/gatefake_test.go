package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

const (
	gateBot   = "warden-test[bot]"
	gateRepo  = "acme/calc"
	gateHead  = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	gateIssue = 7
)

// gateFixture reads a real GitHub webhook payload (the shared fixtures).
func gateFixture(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "test", "fixtures", "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// gateGH answers the GitHub API calls the merge gate makes for one Warden
// PR, paging listings as GitHub does (per_page, page, Link rel="next").
// Check runs, suites and PRs are the fixtures' real objects, changed.
type gateGH struct {
	t        *testing.T
	srv      *httptest.Server
	pull     map[string]any
	suites   []any
	runs     []any
	statuses []any // newest first, as GitHub lists them
	mu       sync.Mutex
	merged   bool
	comments []string
	rules    gateRules
	gql      gateGQL
	rest500  string // a REST path ending so answers 500
	paths    []string
	onGQL    func() // runs once, at the next GraphQL request (something happening mid-evaluation)
}

func newGateGH(t *testing.T) *gateGH {
	g := &gateGH{t: t}
	pr := gateFixture(t, "pull_request.synchronize.json")["pull_request"].(map[string]any)
	pr["number"], pr["state"], pr["merged"] = 3, "open", false
	pr["user"].(map[string]any)["login"] = gateBot
	pr["head"].(map[string]any)["ref"], pr["head"].(map[string]any)["sha"] = "warden/7-fix-add", gateHead
	pr["base"].(map[string]any)["ref"] = "main"
	pr["body"] = "Fixes #7\n\n<!-- warden:pr {\"issue\":7,\"mode\":\"maintenance\"} -->"
	pr["mergeable"] = true // the fixture's push event predates GitHub's computation; a GET has it
	g.pull = pr
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

// run adds a check run by app slug ("" for the fixture's app).
func (g *gateGH) run(name, status, conclusion string) {
	r := gateFixture(g.t, "check_run.completed.json")["check_run"].(map[string]any)
	r["id"], r["name"], r["status"], r["head_sha"] = len(g.runs)+1, name, status, gateHead
	r["conclusion"] = conclusion
	if conclusion == "" {
		r["conclusion"] = nil
	}
	g.runs = append(g.runs, r)
}

// suiteAt adds a suite created at t, holding the check runs named.
func (g *gateGH) suiteAt(status string, t time.Time, runs ...string) {
	g.suite(status, "")
	s := g.suites[len(g.suites)-1].(map[string]any)
	s["created_at"] = t.UTC().Format(time.RFC3339)
	for _, r := range g.runs {
		if r := r.(map[string]any); slices.Contains(runs, r["name"].(string)) {
			r["check_suite"].(map[string]any)["id"] = s["id"]
		}
	}
}

func (g *gateGH) suite(status, conclusion string) {
	s := gateFixture(g.t, "check_suite.completed.json")["check_suite"].(map[string]any)
	s["id"], s["status"], s["head_sha"] = len(g.suites)+1, status, gateHead
	s["conclusion"] = conclusion
	if conclusion == "" {
		s["conclusion"] = nil
	}
	g.suites = append(g.suites, s)
}

// status adds a commit status newer than every earlier one.
func (g *gateGH) status(context, state, creator string) {
	ev := gateFixture(g.t, "status.json")
	sender := ev["sender"].(map[string]any)
	sender["login"] = creator
	st := map[string]any{"id": len(g.statuses) + 1, "state": state, "context": context, "description": context + " said " + state, "creator": sender}
	g.statuses = append([]any{st}, g.statuses...)
}

// page answers one page of list, with GitHub's Link header.
func (g *gateGH) page(w http.ResponseWriter, r *http.Request, list []any, wrap string) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 || per > 100 {
		per = 30
	}
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	p = max(p, 1)
	lo, hi := min((p-1)*per, len(list)), min(p*per, len(list))
	if hi < len(list) {
		next := *r.URL
		q := next.Query()
		q.Set("page", strconv.Itoa(p+1))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, g.srv.URL, next.RequestURI()))
	}
	items := append([]any{}, list[lo:hi]...)
	if wrap == "" {
		writeGate(w, 200, items)
		return
	}
	writeGate(w, 200, map[string]any{"total_count": len(list), wrap: items})
}

func writeGate(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (g *gateGH) serve(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/repos/"+gateRepo)
	g.paths = append(g.paths, r.Method+" "+path)
	if h := g.onGQL; h != nil && r.URL.Path == "/graphql" {
		g.onGQL = nil
		h()
	}
	commit := "/commits/" + url.PathEscape(gateHead)
	if g.rest500 != "" && strings.HasSuffix(path, g.rest500) {
		writeGate(w, 500, map[string]string{"message": "Server Error"})
		return
	}
	if g.serveRules(w, r, path) {
		return
	}
	switch {
	case r.Method == "GET" && path == "/pulls":
		var open []any
		for i := range 120 { // other open PRs first: Warden's is on the second page
			open = append(open, map[string]any{"number": 100 + i, "head": map[string]any{"ref": fmt.Sprintf("feature-%d", i), "sha": fmt.Sprintf("%040d", i)}})
		}
		g.page(w, r, append(open, g.pull), "")
	case r.Method == "GET" && path == "/pulls/3":
		g.pull["auto_merge"] = nil
		if g.rules.autoMerge { // as GitHub shows it (pull-request-simple's auto-merge)
			g.pull["auto_merge"] = map[string]any{"enabled_by": map[string]any{"login": gateBot}, "merge_method": "merge", "commit_title": "", "commit_message": ""}
		}
		writeGate(w, 200, g.pull)
	case r.Method == "GET" && strings.HasPrefix(path, "/contents/"):
		writeGate(w, 404, map[string]string{"message": "Not Found"})
	case r.Method == "GET" && path == commit+"/check-suites":
		g.page(w, r, g.suites, "check_suites")
	case r.Method == "GET" && path == commit+"/check-runs":
		g.page(w, r, g.runs, "check_runs")
	case r.Method == "GET" && path == commit+"/statuses":
		g.page(w, r, g.statuses, "")
	case r.Method == "GET" && path == commit+"/status": // the combined view: 4d59a59 read it, one page
		g.page(w, r, g.statuses, "statuses")
	case r.Method == "POST" && path == "/statuses/"+gateHead:
		writeGate(w, 201, map[string]any{"id": 1})
	case r.Method == "PUT" && path == "/pulls/3/merge":
		if g.refuseMerge(w, r) {
			return
		}
		g.merged = true
		writeGate(w, 200, map[string]any{"merged": true, "sha": gateHead})
	case r.Method == "GET" && path == fmt.Sprintf("/issues/%d", gateIssue):
		writeGate(w, 200, map[string]any{"number": gateIssue, "state": "open", "title": "Add", "labels": []any{}})
	case r.Method == "GET" && path == fmt.Sprintf("/issues/%d/comments", gateIssue):
		var out []any
		for i, c := range g.comments {
			out = append(out, map[string]any{"id": i + 1, "body": c, "user": map[string]any{"login": gateBot}})
		}
		g.page(w, r, out, "")
	case r.Method == "POST" && path == fmt.Sprintf("/issues/%d/comments", gateIssue):
		var c struct{ Body string }
		_ = json.NewDecoder(r.Body).Decode(&c)
		g.comments = append(g.comments, c.Body)
		writeGate(w, 201, map[string]any{"id": len(g.comments), "body": c.Body})
	case r.Method == "PATCH" && strings.HasPrefix(path, "/issues/comments/"):
		id, _ := strconv.Atoi(strings.TrimPrefix(path, "/issues/comments/"))
		var c struct{ Body string }
		_ = json.NewDecoder(r.Body).Decode(&c)
		g.comments[id-1] = c.Body
		writeGate(w, 200, map[string]any{"id": id, "body": c.Body})
	case strings.Contains(path, "/labels"):
		writeGate(w, 200, []any{})
	default:
		g.t.Errorf("unexpected call %s %s", r.Method, r.URL)
		writeGate(w, 404, map[string]string{"message": "Not Found"})
	}
}

type gateApp struct{ base string }

func (a gateApp) Client(int64) *github.Client {
	c := github.NewClient(nil)
	u, _ := url.Parse(a.base + "/")
	c.BaseURL = u
	return c
}
func (gateApp) BotLogin(context.Context) (string, error) { return gateBot, nil }

type memCounter struct {
	mu sync.Mutex
	n  map[string]int64
}

func (m *memCounter) Incr(_ context.Context, key string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == nil {
		m.n = map[string]int64{}
	}
	m.n[key]++
	return m.n[key], nil
}

// lifecycle is a Lifecycle on g; a red head escalates (no fix budget), so
// no queue is needed.
func (g *gateGH) lifecycle() *Lifecycle {
	return &Lifecycle{App: gateApp{g.srv.URL}, Counter: &memCounter{}, Prefix: "warden",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxCheckFixes: 0}
}
