package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

func (s *Server) routes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /app", s.getApp)
	m.HandleFunc("POST /app/installations/{id}/access_tokens", s.accessToken)
	m.HandleFunc("POST /app-manifests/{code}/conversions", s.conversion)
	m.HandleFunc("GET /users/{user}", s.getUser)
	m.HandleFunc("GET /repos/{owner}/{repo}", s.repo(s.getRepo))
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}", s.repo(s.getIssue))
	m.HandleFunc("PATCH /repos/{owner}/{repo}/issues/{n}", s.repo(s.editIssue))
	m.HandleFunc("POST /repos/{owner}/{repo}/issues", s.repo(s.createIssue))
	m.HandleFunc("GET /repos/{owner}/{repo}/issues", s.repo(s.listIssues))
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}/comments", s.repo(s.listComments))
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{n}/comments", s.repo(s.createComment))
	m.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.repo(s.editComment))
	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}/labels", s.repo(s.listLabels))
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{n}/labels", s.repo(s.addLabels))
	m.HandleFunc("DELETE /repos/{owner}/{repo}/issues/{n}/labels/{name}", s.repo(s.removeLabel))
	m.HandleFunc("PUT /repos/{owner}/{repo}/issues/{n}/labels", s.repo(s.replaceLabels))
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{n}/reactions", s.repo(s.createReaction))
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{n}/sub_issues", s.repo(s.addSubIssue))
	m.HandleFunc("GET /repos/{owner}/{repo}/collaborators/{user}/permission", s.repo(s.permission))
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls", s.repo(s.listPulls))
	m.HandleFunc("POST /repos/{owner}/{repo}/pulls", s.repo(s.createPull))
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}", s.repo(s.getPull))
	m.HandleFunc("PUT /repos/{owner}/{repo}/pulls/{n}/merge", s.repo(s.mergePull))
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}/reviews", s.repo(s.listReviews))
	m.HandleFunc("POST /repos/{owner}/{repo}/statuses/{sha}", s.repo(s.createStatus))
	m.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}/status", s.repo(s.combinedStatus))
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}/commits", s.repo(s.listPullCommits))
	m.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", s.repo(s.checkRuns))
	m.HandleFunc("POST /repos/{owner}/{repo}/check-runs", s.repo(s.createCheckRun))
	m.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}/check-suites", s.repo(s.checkSuites))
	m.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}/statuses", s.repo(s.listStatuses))
	m.HandleFunc("GET /repos/{owner}/{repo}/contents/{path...}", s.repo(s.contents))
	m.HandleFunc("GET /repos/{owner}/{repo}/rules/branches/{branch...}", s.repo(s.branchRules))
	m.HandleFunc("GET /repos/{owner}/{repo}/branches/{branch}/protection", s.repo(s.branchProtection))
	m.HandleFunc("POST /graphql", s.graphql)
	s.reviewRoutes(m)
	s.reviewRequestRoutes(m)
	s.gitDBRoutes(m)
	s.manifestRoutes(m)
	return s.withGit(s.middleware(m))
}

// repo resolves {owner}/{repo} and runs h under the lock.
func (s *Server) repo(h func(w http.ResponseWriter, r *http.Request, rp *Repo)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		rp, ok := s.repos[r.PathValue("owner")+"/"+r.PathValue("repo")]
		if !ok {
			notFound(w)
			return
		}
		h(w, r, rp)
	}
}

func num(r *http.Request, key string) int {
	n, _ := strconv.Atoi(r.PathValue(key))
	return n
}

func decode(r *http.Request, v any) bool { return json.NewDecoder(r.Body).Decode(v) == nil }

func user(login string) map[string]any {
	typ, id := "User", len(login)
	if login == BotLogin {
		typ, id = "Bot", BotUserID // as GET /users/<bot> answers
	}
	return map[string]any{"login": login, "type": typ, "id": id}
}

func (s *Server) base(r *http.Request) string { return "http://" + r.Host }

func (s *Server) repoJSON(rp *Repo) map[string]any {
	m := map[string]any{"id": rp.ID, "name": rp.Name, "full_name": rp.Owner + "/" + rp.Name, "owner": user(rp.Owner),
		"clone_url": rp.CloneURL, "default_branch": rp.DefaultBranch, "private": false, "html_url": "https://github.test/" + rp.Owner + "/" + rp.Name}
	rp.rules.mergeSettings(m)
	rp.auto.settings(m)
	return m
}

func labelsJSON(ls []string) []any {
	out := []any{}
	for _, l := range ls {
		out = append(out, labelJSON(l))
	}
	return out
}

func (s *Server) issueJSON(rp *Repo, is *Issue) map[string]any {
	return with(map[string]any{"id": is.ID, "node_id": issueNodeID(is), "number": is.Number, "title": is.Title, "body": is.Body, "state": is.State,
		"user": user(is.Author), "labels": labelsJSON(is.Labels), "comments": commentCount(rp, is.Number),
		"html_url": fmt.Sprintf("https://github.test/%s/%s/issues/%d", rp.Owner, rp.Name, is.Number)}, issueFields(rp, is.Number, is.State == "closed"))
}

func commentJSON(rp *Repo, c *Comment) map[string]any {
	return with(commentFields(rp, c), map[string]any{"id": c.ID, "body": c.Body, "user": user(c.Author), "created_at": c.Created.UTC().Format(time.RFC3339),
		"html_url": fmt.Sprintf("https://github.test/comment/%d", c.ID)})
}

func (s *Server) pullJSON(rp *Repo, p *Pull) map[string]any {
	s.refresh(rp, p)
	users, teams := requestedJSON(rp, p)
	return with(pullFields(rp, p), map[string]any{"requested_reviewers": users, "requested_teams": teams, "id": p.ID, "node_id": nodeID(p), "number": p.Number, "title": p.Title, "body": p.Body, "state": p.State, "merged": p.Merged,
		"user": user(p.Author), "labels": labelsJSON(p.Labels),
		"head":     map[string]any{"ref": p.Head, "sha": p.HeadSHA, "repo": s.repoJSON(rp)},
		"base":     map[string]any{"ref": p.Base, "repo": s.repoJSON(rp)},
		"html_url": fmt.Sprintf("https://github.test/%s/%s/pull/%d", rp.Owner, rp.Name, p.Number)})
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request, rp *Repo) {
	writeJSON(w, 200, s.repoJSON(rp))
}

func (s *Server) permission(w http.ResponseWriter, r *http.Request, rp *Repo) {
	role := rp.perms[r.PathValue("user")]
	if role == "" {
		role = "none"
	}
	// GitHub's legacy field folds maintain into write and triage into read.
	perm := map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}[role]
	writeJSON(w, 200, map[string]any{"permission": perm, "role_name": role, "user": user(r.PathValue("user"))})
}
