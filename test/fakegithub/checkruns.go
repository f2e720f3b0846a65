package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"unicode/utf8"
)

// CreatedCheckRun is a check run the App created (Warden's transcript).
// GitHub lists it in the head's checks under the App's own suite; the
// merge judge ignores Warden's own App (lifecycle's tests cover that), so
// the fake keeps these apart from the CI runs it serves.
type CreatedCheckRun struct {
	ID                                int64
	Name, HeadSHA, Status, Conclusion string
	Title, Summary, Text              string
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// createCheckRun is POST /repos/{owner}/{repo}/check-runs, with GitHub's
// limits: a name, a full head SHA, and output text and summary of at most
// 65535 characters each.
func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var in struct {
		Name       string `json:"name"`
		HeadSHA    string `json:"head_sha"`
		Status     string `json:"status"`
		Conclusion string `json:"conclusion"`
		Output     *struct {
			Title   string `json:"title"`
			Summary string `json:"summary"`
			Text    string `json:"text"`
		} `json:"output"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, 400, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	c := CreatedCheckRun{ID: s.id(), Name: in.Name, HeadSHA: in.HeadSHA, Status: in.Status, Conclusion: in.Conclusion}
	if in.Output != nil {
		c.Title, c.Summary, c.Text = in.Output.Title, in.Output.Summary, in.Output.Text
	}
	switch {
	case c.Name == "" || !fullSHA.MatchString(c.HeadSHA):
		writeJSON(w, 422, map[string]string{"message": "Invalid request.\n\nNo sha or name given."})
		return
	case utf8.RuneCountInString(c.Text) > 65535 || utf8.RuneCountInString(c.Summary) > 65535:
		writeJSON(w, 422, map[string]any{"message": "Invalid request.", "errors": []string{"Only 65535 characters are allowed; 65536 were supplied."}})
		return
	}
	rp.created = append(rp.created, c)
	writeJSON(w, 201, with(checkRunFields(rp, c), map[string]any{
		"id": c.ID, "name": c.Name, "head_sha": c.HeadSHA, "status": c.Status, "conclusion": c.Conclusion,
		"html_url": fmt.Sprintf("%s/%s/%s/runs/%d", s.srv.URL, rp.Owner, rp.Name, c.ID),
		"app":      map[string]any{"id": s.appID, "slug": "warden-test"},
		"output":   map[string]any{"title": c.Title, "summary": c.Summary, "text": c.Text},
	}))
}

// CreatedCheckRuns are the check runs the App created on sha.
func (s *Server) CreatedCheckRuns(repo, sha string) []CreatedCheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CreatedCheckRun
	if rp := s.repos[repo]; rp != nil {
		for _, c := range rp.created {
			if c.HeadSHA == sha {
				out = append(out, c)
			}
		}
	}
	return out
}
