package fakegithub

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ReviewComment is an inline review comment, or a reply in its thread
// (InReplyTo set).
type ReviewComment struct {
	ID, ReviewID, InReplyTo int64
	PR, Line                int
	Path, DiffHunk, Body    string
	Author                  string
	Created                 time.Time
}

// CheckOutput is a check run's output.
type CheckOutput struct{ Title, Summary, Text string }

// Annotation is a check run annotation.
type Annotation struct {
	Path, Level, Message string
	Line                 int
}

func (s *Server) reviewRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}/reviews/{id}/comments", s.repo(s.listReviewComments))
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}/comments", s.repo(s.listPullComments))
	m.HandleFunc("POST /repos/{owner}/{repo}/pulls/{n}/comments", s.repo(s.createReviewComment))
	m.HandleFunc("POST /repos/{owner}/{repo}/pulls/{n}/comments/{id}/replies", s.repo(s.refuseReplyEndpoint))
	m.HandleFunc("GET /repos/{owner}/{repo}/check-runs/{id}/annotations", s.repo(s.annotations))
	m.HandleFunc("GET /repos/{owner}/{repo}/actions/jobs/{id}/logs", s.repo(s.jobLog))
	m.HandleFunc("GET /_logs/{owner}/{repo}/{id}", s.repo(s.rawLog))
}

// AddReviewComment records an inline comment of review reviewID by author
// and returns its id (the webhook a test delivers carries the same fields).
func (s *Server) AddReviewComment(repo string, pr int, reviewID int64, author, path string, line int, hunk, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &ReviewComment{ID: s.id(), ReviewID: reviewID, PR: pr, Line: line, Path: path, DiffHunk: hunk, Body: body, Author: author, Created: time.Now()}
	s.repos[repo].reviewComments = append(s.repos[repo].reviewComments, c)
	return c.ID
}

// AddReviewReply records a person's reply in the thread of comment to
// (filed under the thread's first comment, as GitHub does) and returns its id.
func (s *Server) AddReviewReply(repo string, pr int, to int64, author, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.repos[repo].reviewComments {
		if c.ID == to && c.PR == pr {
			root := to
			if c.InReplyTo != 0 {
				root = c.InReplyTo
			}
			rc := &ReviewComment{ID: s.id(), ReviewID: s.id(), InReplyTo: root, PR: pr, Line: c.Line, Path: c.Path, DiffHunk: c.DiffHunk, Body: body, Author: author, Created: time.Now()}
			s.repos[repo].reviewComments = append(s.repos[repo].reviewComments, rc)
			return rc.ID
		}
	}
	return 0
}

// ReviewComments returns copies of a PR's review comments and replies.
func (s *Server) ReviewComments(repo string, pr int) []ReviewComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ReviewComment
	for _, c := range s.repos[repo].reviewComments {
		if c.PR == pr {
			out = append(out, *c)
		}
	}
	return out
}

// SetCheckOutput gives the named check run on sha its App, output,
// annotations and (for Actions) its job log.
func (s *Server) SetCheckOutput(repo, sha, name, app string, out CheckOutput, anns []Annotation, log string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	for i, c := range r.checks[sha] {
		if c.Name == name {
			r.checks[sha][i].App, r.checks[sha][i].Output, r.checks[sha][i].Annotations = app, out, anns
			r.jobLogs[c.ID] = log
		}
	}
}

func reviewCommentJSON(c *ReviewComment) map[string]any {
	m := map[string]any{"id": c.ID, "pull_request_review_id": c.ReviewID, "path": c.Path, "line": c.Line, "original_line": c.Line,
		"diff_hunk": c.DiffHunk, "body": c.Body, "user": user(c.Author), "side": "RIGHT",
		"created_at": c.Created.UTC().Format(time.RFC3339), "html_url": fmt.Sprintf("https://github.test/pull/%d#discussion_r%d", c.PR, c.ID)}
	if c.InReplyTo != 0 {
		m["in_reply_to_id"] = c.InReplyTo
	}
	return m
}

func (s *Server) listReviewComments(w http.ResponseWriter, r *http.Request, rp *Repo) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	out := []any{}
	for _, c := range rp.reviewComments {
		if c.PR == num(r, "n") && c.ReviewID == id {
			out = append(out, reviewCommentJSON(c))
		}
	}
	writeJSON(w, 200, out)
}

// listPullComments lists every review comment of a PR, replies included,
// oldest first (one page: the fake's PRs never hold 100).
func (s *Server) listPullComments(w http.ResponseWriter, r *http.Request, rp *Repo) {
	out := []any{}
	for _, c := range rp.reviewComments {
		if c.PR == num(r, "n") {
			out = append(out, reviewCommentJSON(c))
		}
	}
	writeJSON(w, 200, out)
}

// reply adds a reply by the App in the thread of comment to. As GitHub
// does, a reply to a reply is filed under the thread's first comment: its
// in_reply_to_id names that one.
func (s *Server) reply(w http.ResponseWriter, rp *Repo, pr int, to int64, body string) {
	for _, c := range rp.reviewComments {
		if c.ID == to && c.PR == pr {
			root := to
			if c.InReplyTo != 0 {
				root = c.InReplyTo
			}
			rc := &ReviewComment{ID: s.id(), ReviewID: s.id(), InReplyTo: root, PR: pr, Path: c.Path, Line: c.Line,
				DiffHunk: c.DiffHunk, Body: body, Author: BotLogin, Created: time.Now()}
			rp.reviewComments = append(rp.reviewComments, rc)
			writeJSON(w, 201, reviewCommentJSON(rc))
			return
		}
	}
	notFound(w)
}

// createReviewComment serves POST pulls/{n}/comments; only the in_reply_to
// form (a reply in a thread) is supported. GitHub's description requires
// body, commit_id and path even then: a body without them is refused.
func (s *Server) createReviewComment(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var req struct {
		Body      string `json:"body"`
		InReplyTo int64  `json:"in_reply_to"`
		CommitID  string `json:"commit_id"`
		Path      string `json:"path"`
	}
	if !decode(r, &req) || req.Body == "" || req.InReplyTo == 0 || req.CommitID == "" || req.Path == "" {
		writeJSON(w, 422, map[string]string{"message": "Validation Failed"})
		return
	}
	for _, c := range rp.reviewComments {
		if c.ID == req.InReplyTo && c.Path != req.Path {
			writeJSON(w, 422, map[string]string{"message": "Validation Failed"})
			return
		}
	}
	s.reply(w, rp, num(r, "n"), req.InReplyTo, req.Body)
}

// refuseReplyEndpoint answers POST …/pulls/{n}/comments/{id}/replies as
// GitHub answers an App there: GitHub's description marks the operation
// enabledForGitHubApps: false, and an installation token is refused with
// GitHub's 403 body for what an integration may not do.
func (s *Server) refuseReplyEndpoint(w http.ResponseWriter, r *http.Request, rp *Repo) {
	writeJSON(w, 403, map[string]string{"message": "Resource not accessible by integration",
		"documentation_url": "https://docs.github.com/rest/pulls/comments#create-a-reply-for-a-review-comment", "status": "403"})
}

func checkRunJSON(c CheckRun, i int, sha string) map[string]any {
	id := c.ID
	if id == 0 {
		id = int64(i + 1)
	}
	// Every run is in the head's one suite (checkSuites), as GitHub names it.
	run := map[string]any{"id": id, "name": c.Name, "status": c.Status, "head_sha": sha, "check_suite": map[string]any{"id": 1},
		"output": map[string]any{"title": c.Output.Title, "summary": c.Output.Summary, "text": c.Output.Text, "annotations_count": len(c.Annotations)}}
	if c.App != "" {
		run["app"] = map[string]any{"slug": c.App}
	}
	if c.Conclusion != "" {
		run["conclusion"] = c.Conclusion
	}
	return run
}

func (s *Server) annotations(w http.ResponseWriter, r *http.Request, rp *Repo) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	out := []any{}
	for _, runs := range rp.checks {
		for _, c := range runs {
			if c.ID != id {
				continue
			}
			for _, a := range c.Annotations {
				out = append(out, map[string]any{"path": a.Path, "start_line": a.Line, "end_line": a.Line,
					"annotation_level": a.Level, "message": a.Message})
			}
		}
	}
	writeJSON(w, 200, out)
}

// jobLog answers as GitHub does: a redirect to a short-lived download URL.
func (s *Server) jobLog(w http.ResponseWriter, r *http.Request, rp *Repo) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if _, ok := rp.jobLogs[id]; !ok {
		notFound(w)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("%s/_logs/%s/%s/%d", s.base(r), rp.Owner, rp.Name, id), http.StatusFound)
}

func (s *Server) rawLog(w http.ResponseWriter, r *http.Request, rp *Repo) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write([]byte(rp.jobLogs[id]))
}
