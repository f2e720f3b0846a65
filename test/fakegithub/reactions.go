package fakegithub

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"time"
)

// Reaction is a reaction on an issue.
type Reaction struct {
	ID      int64
	Issue   int
	Content string
	Author  string
	Created time.Time
}

// createReaction answers POST .../issues/{n}/reactions: 201 for a new
// reaction, 200 with the existing one when the user already reacted so.
func (s *Server) createReaction(w http.ResponseWriter, r *http.Request, rp *Repo) {
	n := num(r, "n")
	var req struct {
		Content string `json:"content"`
	}
	valid := []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}
	if _, ok := rp.issues[n]; !ok {
		if _, ok := rp.pulls[n]; !ok {
			notFound(w)
			return
		}
	}
	if !decode(r, &req) || !slices.Contains(valid, req.Content) {
		writeJSON(w, 422, map[string]string{"message": "Validation Failed"})
		return
	}
	author := s.author(r)
	for _, x := range rp.reactions {
		if x.Issue == n && x.Content == req.Content && x.Author == author {
			writeJSON(w, 200, reactionJSON(x))
			return
		}
	}
	x := &Reaction{ID: s.id(), Issue: n, Content: req.Content, Author: author, Created: time.Now()}
	rp.reactions = append(rp.reactions, x)
	writeJSON(w, 201, reactionJSON(x))
}

func reactionJSON(x *Reaction) map[string]any {
	return map[string]any{"id": x.ID, "content": x.Content, "user": user(x.Author), "created_at": x.Created.UTC().Format(time.RFC3339)}
}

// Reactions lists the reactions on issue n, oldest first.
func (s *Server) Reactions(repo string, n int) []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Reaction
	for _, x := range s.repos[repo].reactions {
		if x.Issue == n {
			out = append(out, *x)
		}
	}
	return out
}

// replaceLabels answers PUT .../issues/{n}/labels: the body is a list of
// names or {"labels": [...]}.
func (s *Server) replaceLabels(w http.ResponseWriter, r *http.Request, rp *Repo) {
	ls := s.labelsOf(rp, num(r, "n"))
	b, _ := io.ReadAll(r.Body)
	var names []string
	if ls == nil || json.Unmarshal(b, &names) != nil {
		var obj struct {
			Labels []string `json:"labels"`
		}
		if ls == nil || json.Unmarshal(b, &obj) != nil {
			notFound(w)
			return
		}
		names = obj.Labels
	}
	rp.know(names...)
	*ls = slices.Compact(append([]string{}, names...))
	writeJSON(w, 200, labelsJSON(*ls))
}

// commentCount is the issue's "comments" field.
func commentCount(rp *Repo, n int) int {
	c := 0
	for _, x := range rp.comments {
		if x.Issue == n {
			c++
		}
	}
	return c
}
