package fakegithub

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// rulesState is a repository's merge rules as GitHub keeps them: the
// rulesets that apply to its branches, the merge methods its settings allow,
// and its merge queue. The rule objects follow GitHub's OpenAPI schemas
// (repository-rule-detailed, in the envelope of its repository-rule-items
// example); refusals are the messages GitHub sends.
type rulesState struct {
	rules   []map[string]any
	methods []string     // nil: every method, and allow_* left out as GitHub does for readers
	queue   map[int]bool // PR number → in the merge queue
}

// AddRule adds a ruleset rule on every branch of repo: typ is GitHub's rule
// type (pull_request, required_status_checks, merge_queue …), params its
// parameters object.
func (s *Server) AddRule(repo, typ string, params map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := map[string]any{"type": typ, "ruleset_source_type": "Repository", "ruleset_source": repo, "ruleset_id": 42}
	if params != nil {
		r["parameters"] = params
	}
	rp := s.repos[repo]
	rp.rules.rules = append(rp.rules.rules, r)
}

// ClearRules removes repo's rulesets, empties its merge queue and resets
// its auto-merge switches (automerge.go).
func (s *Server) ClearRules(repo string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[repo]
	rp.rules.rules, rp.rules.queue = nil, nil
	rp.auto = autoMergeState{}
}

// AllowMergeMethods sets the repository's allow_squash_merge,
// allow_merge_commit and allow_rebase_merge.
func (s *Server) AllowMergeMethods(repo string, methods ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].rules.methods = methods
}

// Queued reports whether PR n is in repo's merge queue.
func (s *Server) Queued(repo string, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repos[repo].rules.queue[n]
}

// Dequeue ends PR n's stay in the merge queue: merged when its group passed,
// removed otherwise. The caller delivers the events GitHub sends.
func (s *Server) Dequeue(repo string, n int, merged bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[repo]
	delete(rp.rules.queue, n)
	if merged {
		p := rp.pulls[n]
		p.State, p.Merged, p.MergedWith = "closed", true, "queue"
	}
}

func (rs *rulesState) allowed(m string) bool {
	return rs.methods == nil || slices.Contains(rs.methods, m)
}

func (rs *rulesState) rule(typ string) map[string]any {
	for _, r := range rs.rules {
		if r["type"] == typ {
			p, _ := r["parameters"].(map[string]any)
			if p == nil {
				p = map[string]any{}
			}
			return p
		}
	}
	return nil
}

func (s *Server) branchRules(w http.ResponseWriter, r *http.Request, rp *Repo) {
	out := []any{}
	for _, x := range rp.rules.rules {
		out = append(out, x)
	}
	writeJSON(w, 200, out)
}

// branchProtection answers as for a branch without classic protection,
// with GitHub's recorded body.
func (s *Server) branchProtection(w http.ResponseWriter, r *http.Request, rp *Repo) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(404)
	w.Write(apiFixture("branch-not-protected.404.json"))
}

// apiFixture reads a recorded GitHub response body from test/fixtures/github-api.
func apiFixture(name string) []byte {
	b, err := os.ReadFile(filepath.Join(fixturesDir(), "github-api", name))
	if err != nil {
		panic(err)
	}
	return b
}

// fixturesDir is test/fixtures: beside this file's package, or, when the
// build trimmed its paths (the mutant runs use -trimpath), found from the
// working directory up to the module's root.
func fixturesDir() string {
	if _, file, _, _ := runtime.Caller(0); filepath.IsAbs(file) {
		return filepath.Join(filepath.Dir(file), "..", "fixtures")
	}
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "test", "fixtures")
		}
		up := filepath.Dir(dir)
		if up == dir {
			return filepath.Join("test", "fixtures")
		}
		dir = up
	}
}

// mergeRefusal is GitHub's 405 for a merge the rules forbid, or "".
func (s *Server) mergeRefusal(rp *Repo, p *Pull, method string) string {
	rs := &rp.rules
	if rs.rule("merge_queue") != nil {
		return "Repository rule violations found\n\nChanges must be made through the merge queue"
	}
	if !rs.allowed(method) {
		return map[string]string{"squash": "Squash merges are not allowed on this repository.",
			"merge": "Merge commits are not allowed on this repository.", "rebase": "Rebase merges are not allowed on this repository."}[method]
	}
	if pr := rs.rule("pull_request"); pr != nil {
		need, _ := pr["required_approving_review_count"].(float64)
		if n, _ := pr["required_approving_review_count"].(int); n > 0 {
			need = float64(n)
		}
		if got := s.approvals(rp, p); float64(got) < need {
			return fmt.Sprintf("At least %d approving review is required by reviewers with write access.", int(need))
		}
	}
	return ""
}

// approvals counts writers whose latest deciding review approves.
func (s *Server) approvals(rp *Repo, p *Pull) int {
	latest := map[string]string{}
	for _, rv := range rp.reviews[p.Number] {
		if rv.State != "COMMENTED" {
			latest[rv.User] = rv.State
		}
	}
	n := 0
	for u, st := range latest {
		role := rp.perms[u]
		if st == "APPROVED" && (role == "write" || role == "maintain" || role == "admin") {
			n++
		}
	}
	return n
}

// graphql serves Warden's head query (headquery.go) and the mutation it
// sends, enqueuePullRequest. The answer has GitHub's shape ({"data":…} or {"errors":[…]}).
func (s *Server) graphql(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if !decode(r, &req) {
		writeJSON(w, 400, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.Contains(req.Query, "checkSuites") {
		s.headQuery(w, req.Variables)
		return
	}
	if strings.Contains(req.Query, "issue(number:") {
		s.issueQuery(w, req.Variables)
		return
	}
	if strings.Contains(req.Query, "addLabelsToLabelable") {
		s.labelSwap(w, req.Variables)
		return
	}
	if strings.Contains(req.Query, "isInMergeQueue") {
		s.bindingsQuery(w, req.Variables)
		return
	}
	input, _ := req.Variables["input"].(map[string]any)
	id, _ := input["pullRequestId"].(string)
	if strings.Contains(req.Query, "dequeuePullRequest") {
		id, _ = input["id"].(string)
	}
	rp, p := s.pullByNodeID(id)
	if p != nil && (s.queueMutation(w, req.Query, rp, p) || s.enqueueAnswer(w, req.Query, rp)) {
		return
	}
	if !strings.Contains(req.Query, "enqueuePullRequest") || p == nil {
		writeJSON(w, 200, gqlNotFound(nil, fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id), "enqueuePullRequest"))
		return
	}
	p.QueuedHead, _ = input["expectedHeadOid"].(string)
	if rp.rules.queue == nil {
		rp.rules.queue = map[int]bool{}
	}
	rp.rules.queue[p.Number] = true
	writeJSON(w, 200, map[string]any{"data": map[string]any{"enqueuePullRequest": map[string]any{
		"mergeQueueEntry": map[string]any{"position": len(rp.rules.queue), "state": "QUEUED"}}}})
}

// queueMutation answers dequeuePullRequest and the auto-merge switches in
// GitHub's shape; a dequeue of a PR not in the queue is an error.
func (s *Server) queueMutation(w http.ResponseWriter, query string, rp *Repo, p *Pull) bool {
	switch {
	case strings.Contains(query, "dequeuePullRequest"):
		if rp.rules.queue == nil || !rp.rules.queue[p.Number] {
			writeJSON(w, 200, map[string]any{"data": map[string]any{"dequeuePullRequest": nil},
				"errors": []any{map[string]any{"type": "UNPROCESSABLE", "path": []any{"dequeuePullRequest"}, "message": "Pull request is not in the merge queue"}}})
			return true
		}
		delete(rp.rules.queue, p.Number)
		writeJSON(w, 200, map[string]any{"data": map[string]any{"dequeuePullRequest": map[string]any{"mergeQueueEntry": map[string]any{"state": "QUEUED"}}}})
	case strings.Contains(query, "enablePullRequestAutoMerge"), strings.Contains(query, "disablePullRequestAutoMerge"):
		on := strings.Contains(query, "enablePullRequestAutoMerge")
		p.AutoMerge = on
		name := map[bool]string{true: "enablePullRequestAutoMerge", false: "disablePullRequestAutoMerge"}[on]
		writeJSON(w, 200, map[string]any{"data": map[string]any{name: map[string]any{"pullRequest": map[string]any{"number": p.Number}}}})
	default:
		return false
	}
	return true
}

func (s *Server) pullByNodeID(id string) (*Repo, *Pull) {
	for _, rp := range s.repos {
		for _, p := range rp.pulls {
			if nodeID(p) == id {
				return rp, p
			}
		}
	}
	return nil, nil
}

func nodeID(p *Pull) string { return "PR_kw" + strconv.FormatInt(p.ID, 10) }

// mergeSettings are the allow_* fields of a repository, when set.
func (rs *rulesState) mergeSettings(m map[string]any) {
	if rs.methods == nil {
		return
	}
	m["allow_squash_merge"], m["allow_merge_commit"], m["allow_rebase_merge"] = rs.allowed("squash"), rs.allowed("merge"), rs.allowed("rebase")
}
