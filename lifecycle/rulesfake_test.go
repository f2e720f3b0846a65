package lifecycle

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// gateRules is the rules side of gateGH: the repository's settings, the
// rulesets of main, classic protection, reviews, and GitHub's answers to
// merge calls. The rule objects follow GitHub's OpenAPI schemas
// (repository-rule-detailed); refusals are GitHub's exact messages.
type gateRules struct {
	repo       map[string]any // GET /repos/{o}/{r}; nil: the fixture's repository
	rulesets   []any          // GET /repos/{o}/{r}/rules/branches/main
	protection map[string]any // nil: 404 Branch not protected
	reviews    []any
	writers    map[string]bool
	refusals   []gateRefusal // answered to merge calls in order, then success
	methods    []string      // merge_method of each merge call
	graphql    []string      // GraphQL mutations received
	gqlAnswer  string        // body answered to GraphQL; "" a queued entry
	gql502     int           // the next GraphQL requests answered 502
	queued     bool          // GitHub's state: in the merge queue (an enqueue answered with an entry)
	autoMerge  bool          // GitHub's state: auto-merge on
	config     string        // .github/warden.yml; "" none
}

type gateRefusal struct {
	code int
	body string
}

// ruleset adds one rule of a ruleset on main, in the envelope of GitHub's
// example (repository-rule-items).
func (g *gateGH) ruleset(typ string, params map[string]any) {
	r := map[string]any{"type": typ, "ruleset_source_type": "Repository", "ruleset_source": gateRepo, "ruleset_id": 42}
	if params != nil {
		r["parameters"] = params
	}
	g.rules.rulesets = append(g.rules.rulesets, r)
}

func (g *gateGH) review(user, state string, writer bool) {
	ev := gateFixture(g.t, "pull_request_review.submitted.json")["review"].(map[string]any)
	ev["id"], ev["state"], ev["commit_id"] = len(g.rules.reviews)+1, state, gateHead
	ev["user"].(map[string]any)["login"] = user
	g.rules.reviews = append(g.rules.reviews, ev)
	if g.rules.writers == nil {
		g.rules.writers = map[string]bool{}
	}
	g.rules.writers[user] = writer
}

func (g *gateGH) refuse(code int, message string) {
	b, _ := json.Marshal(map[string]any{"message": message, "documentation_url": "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request", "status": code})
	g.rules.refusals = append(g.rules.refusals, gateRefusal{code, string(b)})
}

func (g *gateGH) serveRules(w http.ResponseWriter, r *http.Request, path string) bool {
	switch {
	case r.Method == "GET" && path == "/contents/.github/warden.yml" && g.rules.config != "":
		writeGate(w, 200, map[string]any{"type": "file", "encoding": "base64", "name": "warden.yml", "path": ".github/warden.yml",
			"content": base64.StdEncoding.EncodeToString([]byte(g.rules.config))})
	case r.Method == "GET" && path == "":
		repo := g.rules.repo
		if repo == nil {
			repo = gateFixture(g.t, "pull_request.synchronize.json")["repository"].(map[string]any)
		}
		writeGate(w, 200, repo)
	case r.Method == "GET" && path == "/rules/branches/main":
		g.page(w, r, g.rules.rulesets, "")
	case r.Method == "GET" && path == "/branches/main/protection":
		if g.rules.protection == nil {
			b, err := os.ReadFile(filepath.Join("..", "test", "fixtures", "github-api", "branch-not-protected.404.json"))
			if err != nil {
				g.t.Fatal(err)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(404)
			_, _ = w.Write(b)
			return true
		}
		writeGate(w, 200, g.rules.protection)
	case r.Method == "GET" && path == "/pulls/3/reviews":
		g.page(w, r, g.rules.reviews, "")
	case r.Method == "GET" && strings.HasPrefix(path, "/collaborators/"):
		user := strings.TrimSuffix(strings.TrimPrefix(path, "/collaborators/"), "/permission")
		perm := "read"
		if g.rules.writers[user] {
			perm = "write"
		}
		writeGate(w, 200, map[string]any{"permission": perm, "role_name": perm, "user": map[string]any{"login": user}})
	case r.Method == "POST" && r.URL.Path == "/graphql":
		var q struct{ Query string }
		_ = json.NewDecoder(r.Body).Decode(&q)
		if strings.Contains(q.Query, "checkSuites") {
			g.headQuery(w, r)
			return true
		}
		g.rules.graphql = append(g.rules.graphql, q.Query)
		if g.rules.gql502 > 0 {
			g.rules.gql502--
			writeGate(w, 502, map[string]string{"message": "Server Error"})
			return true
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(g.rules.answerGQL(q.Query)))
	default:
		return false
	}
	return true
}

// answerGQL answers a GraphQL request and keeps GitHub's state of the
// PR's bindings: the merge queue and auto-merge.
func (r *gateRules) answerGQL(query string) string {
	switch {
	case strings.Contains(query, "isInMergeQueue"):
		auto := "null"
		if r.autoMerge {
			auto = `{"enabledAt":"2026-11-29T10:00:00Z"}`
		}
		return fmt.Sprintf(`{"data":{"node":{"number":3,"isInMergeQueue":%v,"autoMergeRequest":%s}}}`, r.queued, auto)
	case strings.Contains(query, "enablePullRequestAutoMerge"):
		r.autoMerge = true
		return `{"data":{"enablePullRequestAutoMerge":{"pullRequest":{"number":3}}}}`
	case strings.Contains(query, "disablePullRequestAutoMerge"):
		r.autoMerge = false
		return `{"data":{"disablePullRequestAutoMerge":{"pullRequest":{"number":3}}}}`
	case strings.Contains(query, "dequeuePullRequest"):
		r.queued = false
		return `{"data":{"dequeuePullRequest":{"mergeQueueEntry":{"state":"QUEUED"}}}}`
	case r.gqlAnswer != "":
		return r.gqlAnswer
	}
	r.queued = true
	return `{"data":{"enqueuePullRequest":{"mergeQueueEntry":{"position":1,"state":"QUEUED"}}}}`
}

// refuseMerge answers a merge call with the next refusal, if any.
func (g *gateGH) refuseMerge(w http.ResponseWriter, r *http.Request) bool {
	var req struct {
		MergeMethod string `json:"merge_method"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	g.rules.methods = append(g.rules.methods, req.MergeMethod)
	if len(g.rules.refusals) == 0 {
		return false
	}
	ref := g.rules.refusals[0]
	g.rules.refusals = g.rules.refusals[1:]
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ref.code)
	_, _ = w.Write([]byte(ref.body))
	return true
}
