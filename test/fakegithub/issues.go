package fakegithub

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"
)

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request, rp *Repo) {
	if is, ok := rp.issues[num(r, "n")]; ok {
		writeJSON(w, 200, s.issueJSON(rp, is))
		return
	}
	if p, ok := rp.pulls[num(r, "n")]; ok {
		writeJSON(w, 200, map[string]any{"number": p.Number, "title": p.Title, "state": p.State, "labels": labelsJSON(p.Labels), "pull_request": map[string]any{}})
		return
	}
	notFound(w)
}

func (s *Server) editIssue(w http.ResponseWriter, r *http.Request, rp *Repo) {
	is, ok := rp.issues[num(r, "n")]
	if !ok {
		notFound(w)
		return
	}
	var req struct {
		State *string `json:"state"`
		Title *string `json:"title"`
		Body  *string `json:"body"`
	}
	if !decode(r, &req) {
		writeJSON(w, 400, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	if req.State != nil {
		is.State = *req.State
	}
	if req.Title != nil {
		is.Title = *req.Title
	}
	if req.Body != nil {
		is.Body = *req.Body
	}
	writeJSON(w, 200, s.issueJSON(rp, is))
}

func (s *Server) createIssue(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var req struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if !decode(r, &req) || req.Title == "" {
		writeJSON(w, 422, map[string]string{"message": "Validation Failed"})
		return
	}
	n := 1
	for k := range rp.issues {
		n = max(n, k+1)
	}
	is := &Issue{ID: s.id(), Number: n, Title: req.Title, Body: req.Body, State: "open", Author: BotLogin, Labels: req.Labels}
	rp.issues[n] = is
	rp.know(req.Labels...)
	writeJSON(w, 201, s.issueJSON(rp, is))
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var all []*Comment
	for _, c := range rp.comments {
		if c.Issue == num(r, "n") {
			all = append(all, c)
		}
	}
	out := []any{}
	for _, c := range all {
		out = append(out, commentJSON(rp, c))
	}
	s.writePaged(w, r, out)
}

func (s *Server) author(r *http.Request) string {
	// Only the App holds installation tokens here: everything it writes is the bot's.
	return BotLogin
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var req struct {
		Body string `json:"body"`
	}
	if !decode(r, &req) || req.Body == "" {
		writeJSON(w, 422, map[string]string{"message": "Validation Failed"})
		return
	}
	if len([]rune(req.Body)) > 65536 {
		writeJSON(w, 422, map[string]string{"message": "Validation Failed", "errors": "body is too long (maximum is 65536 characters)"})
		return
	}
	c := &Comment{ID: s.id(), Issue: num(r, "n"), Body: req.Body, Author: s.author(r), Created: time.Now()}
	rp.comments = append(rp.comments, c)
	writeJSON(w, 201, commentJSON(rp, c))
}

// AddUserComment adds a comment by someone other than the bot.
func (s *Server) AddUserComment(repo string, n int, author, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[repo]
	rp.comments = append(rp.comments, &Comment{ID: s.id(), Issue: n, Body: body, Author: author, Created: time.Now()})
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request, rp *Repo) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var req struct {
		Body string `json:"body"`
	}
	if !decode(r, &req) {
		writeJSON(w, 400, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	for _, c := range rp.comments {
		if c.ID == id {
			if c.Author != BotLogin {
				writeJSON(w, 403, map[string]string{"message": "Resource not accessible by integration"})
				return
			}
			c.Body, c.Edits = req.Body, c.Edits+1
			writeJSON(w, 200, commentJSON(rp, c))
			return
		}
	}
	notFound(w)
}

func (s *Server) labelsOf(rp *Repo, n int) *[]string {
	if is, ok := rp.issues[n]; ok {
		return &is.Labels
	}
	if p, ok := rp.pulls[n]; ok {
		return &p.Labels
	}
	return nil
}

func (s *Server) listLabels(w http.ResponseWriter, r *http.Request, rp *Repo) {
	ls := s.labelsOf(rp, num(r, "n"))
	if ls == nil {
		notFound(w)
		return
	}
	writeJSON(w, 200, labelsJSON(*ls))
}

func (s *Server) addLabels(w http.ResponseWriter, r *http.Request, rp *Repo) {
	ls := s.labelsOf(rp, num(r, "n"))
	req, ok := labelNames(r)
	if ls == nil || !ok {
		notFound(w)
		return
	}
	rp.know(req...)
	for _, l := range req {
		if !slices.Contains(*ls, l) {
			*ls = append(*ls, l)
		}
	}
	writeJSON(w, 200, labelsJSON(*ls))
}

func (s *Server) removeLabel(w http.ResponseWriter, r *http.Request, rp *Repo) {
	ls := s.labelsOf(rp, num(r, "n"))
	name := r.PathValue("name")
	if ls == nil || !slices.Contains(*ls, name) {
		writeJSON(w, 404, map[string]string{"message": "Label does not exist"})
		return
	}
	*ls = slices.DeleteFunc(*ls, func(l string) bool { return l == name })
	writeJSON(w, 200, labelsJSON(*ls))
}

func (s *Server) addSubIssue(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var req struct {
		SubIssueID int64 `json:"sub_issue_id"`
	}
	if !decode(r, &req) {
		writeJSON(w, 422, map[string]string{"message": "Validation Failed"})
		return
	}
	n := num(r, "n")
	rp.subIssues[n] = append(rp.subIssues[n], req.SubIssueID)
	writeJSON(w, 201, s.issueJSON(rp, rp.issues[n]))
}

// listIssues is GET /repos/{o}/{r}/issues: open (or state=all|closed)
// issues and pull requests, filtered by creator, oldest first with
// sort=created&direction=asc (else newest first), per_page a page with
// GitHub's Link header to the next.
func (s *Server) listIssues(w http.ResponseWriter, r *http.Request, rp *Repo) {
	q := r.URL.Query()
	state, creator := q.Get("state"), q.Get("creator")
	if state == "" {
		state = "open"
	}
	var all []map[string]any
	keep := func(st, author string) bool {
		return (state == "all" || st == state) && (creator == "" || author == creator)
	}
	for _, n := range sortedKeys(rp.issues) {
		if is := rp.issues[n]; keep(is.State, is.Author) {
			all = append(all, s.issueJSON(rp, is))
		}
	}
	for _, n := range sortedKeys(rp.pulls) {
		if p := rp.pulls[n]; keep(p.State, p.Author) {
			all = append(all, map[string]any{"number": p.Number, "title": p.Title, "body": p.Body, "state": p.State,
				"user": user(p.Author), "labels": labelsJSON(p.Labels), "pull_request": map[string]any{}})
		}
	}
	slices.SortFunc(all, func(a, b map[string]any) int { return a["number"].(int) - b["number"].(int) })
	if q.Get("direction") != "asc" {
		slices.Reverse(all)
	}
	out := make([]any, len(all))
	for i, m := range all {
		out[i] = m
	}
	s.writePaged(w, r, out)
}

// labelNames reads a labels body in either form GitHub's description
// allows: a bare array (go-github's) or {"labels": [...]}.
func labelNames(r *http.Request) ([]string, bool) {
	var raw json.RawMessage
	if !decode(r, &raw) {
		return nil, false
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list, true
	}
	var obj struct {
		Labels []string `json:"labels"`
	}
	return obj.Labels, json.Unmarshal(raw, &obj) == nil
}
