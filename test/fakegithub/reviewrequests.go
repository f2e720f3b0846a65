package fakegithub

import (
	"fmt"
	"net/http"
	"slices"
)

// GitHub's refusals of a review request (POST …/requested_reviewers), word
// for word: a reviewer who is not a collaborator (as recorded by API
// clients, e.g. denog/routing-guide#118), and the pull request's author.
const (
	notCollaborator = "Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the %s repository."
	authorReview    = "Review cannot be requested from pull request author."
	reviewReqDoc    = "https://docs.github.com/rest/pulls/review-requests#request-reviewers-for-a-pull-request"
)

func (s *Server) reviewRequestRoutes(m *http.ServeMux) {
	m.HandleFunc("POST /repos/{owner}/{repo}/pulls/{n}/requested_reviewers", s.repo(s.requestReviewers))
}

// AddTeam gives a team (its slug) access to repo: it can be asked to review.
func (s *Server) AddTeam(repo, slug string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	if r.teams == nil {
		r.teams = map[string]bool{}
	}
	r.teams[slug] = true
}

// ReviewRequests returns who is requested to review PR n (logins, team
// slugs) and how many requests were answered 201.
func (s *Server) ReviewRequests(repo string, n int) (users, teams []string, calls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.repos[repo].pulls[n]
	return slices.Clone(p.Requested), slices.Clone(p.RequestedTeams), p.reviewCalls
}

// requestReviewers answers as GitHub does: the whole request is refused
// (422) when any reviewer cannot be asked, else the PR with them added.
func (s *Server) requestReviewers(w http.ResponseWriter, r *http.Request, rp *Repo) {
	p, ok := rp.pulls[num(r, "n")]
	if !ok {
		notFound(w)
		return
	}
	var in struct {
		Reviewers     []string `json:"reviewers"`
		TeamReviewers []string `json:"team_reviewers"`
	}
	if !decode(r, &in) {
		writeJSON(w, 400, map[string]any{"message": "Problems parsing JSON", "documentation_url": reviewReqDoc, "status": "400"})
		return
	}
	for _, u := range in.Reviewers {
		if u == p.Author {
			writeJSON(w, 422, map[string]any{"message": authorReview, "documentation_url": reviewReqDoc, "status": "422"})
			return
		}
	}
	for _, u := range in.Reviewers {
		if role := rp.perms[u]; role == "" || role == "none" {
			writeJSON(w, 422, map[string]any{"message": fmt.Sprintf(notCollaborator, rp.Owner+"/"+rp.Name), "documentation_url": reviewReqDoc, "status": "422"})
			return
		}
	}
	for _, t := range in.TeamReviewers {
		if !rp.teams[t] {
			writeJSON(w, 422, map[string]any{"message": fmt.Sprintf(notCollaborator, rp.Owner+"/"+rp.Name), "documentation_url": reviewReqDoc, "status": "422"})
			return
		}
	}
	for _, u := range in.Reviewers {
		if !slices.Contains(p.Requested, u) {
			p.Requested = append(p.Requested, u)
		}
	}
	for _, t := range in.TeamReviewers {
		if !slices.Contains(p.RequestedTeams, t) {
			p.RequestedTeams = append(p.RequestedTeams, t)
		}
	}
	p.reviewCalls++
	writeJSON(w, 201, s.pullJSON(rp, p))
}

// requestedJSON is the PR's requested_reviewers and requested_teams.
func requestedJSON(rp *Repo, p *Pull) (users, teams []any) {
	users, teams = []any{}, []any{}
	for _, u := range p.Requested {
		users = append(users, user(u))
	}
	for i, t := range p.RequestedTeams {
		teams = append(teams, teamJSON(rp, t, i))
	}
	return users, teams
}

// teamJSON is a team as GitHub's "team" schema has it (its required fields).
func teamJSON(rp *Repo, slug string, i int) map[string]any {
	url := "https://api.github.test/organizations/1/team/" + slug
	return map[string]any{"id": 900 + i, "node_id": "T_" + slug, "url": url, "html_url": "https://github.test/orgs/" + rp.Owner + "/teams/" + slug,
		"name": slug, "slug": slug, "description": nil, "permission": "push", "members_url": url + "/members{/member}",
		"repositories_url": url + "/repos", "parent": nil}
}
