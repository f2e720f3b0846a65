package fakegithub

import (
	"cmp"
	"encoding/base64"
	"net/http"
	"os/exec"
	"strings"
)

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request, rp *Repo) {
	q := r.URL.Query()
	out := []any{}
	for _, n := range sortedKeys(rp.pulls) {
		p := rp.pulls[n]
		s.refresh(rp, p)
		state := q.Get("state")
		if (state == "" || state == "open") && p.State != "open" || state == "closed" && p.State != "closed" {
			continue
		}
		if h := q.Get("head"); h != "" && h != rp.Owner+":"+p.Head {
			continue
		}
		if b := q.Get("base"); b != "" && b != p.Base {
			continue
		}
		out = append(out, s.pullJSON(rp, p))
	}
	writeJSON(w, 200, out)
}

func (s *Server) createPull(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var req struct {
		Title, Head, Base, Body string
	}
	if !decode(r, &req) {
		writeJSON(w, 400, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	for _, p := range rp.pulls {
		if p.State == "open" && p.Head == req.Head && p.Base == req.Base {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(422)
			w.Write([]byte(`{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"A pull request already exists for ` + rp.Owner + `:` + req.Head + `."}],"documentation_url":"https://docs.github.com/rest/pulls/pulls#create-a-pull-request"}`))
			return
		}
	}
	sha := headSHA(rp.CloneURL, req.Head)
	if sha == "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(422)
		w.Write([]byte(`{"message":"Validation Failed","errors":[{"resource":"PullRequest","field":"head","code":"invalid"}],"documentation_url":"https://docs.github.com/rest/pulls/pulls#create-a-pull-request"}`))
		return
	}
	rp.nextNumber++
	p := &Pull{ID: s.id(), Number: rp.nextNumber, Title: req.Title, Body: req.Body, Head: req.Head, Base: req.Base, State: "open", HeadSHA: sha, Author: BotLogin}
	rp.pulls[p.Number] = p
	writeJSON(w, 201, s.pullJSON(rp, p))
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request, rp *Repo) {
	p, ok := rp.pulls[num(r, "n")]
	if !ok {
		notFound(w)
		return
	}
	m := s.pullJSON(rp, p)
	m["mergeable"] = mergeable(p) // only the PR's own GET carries it, as on GitHub
	writeJSON(w, 200, m)
}

// ClosePull closes a PR, merged or not, as a maintainer would.
func (s *Server) ClosePull(repo string, n int, merged bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.repos[repo].pulls[n]
	p.State, p.Merged = "closed", merged
}

// MergeCalls counts the merge calls made on PR n (refused ones too).
func (s *Server) MergeCalls(repo string, n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repos[repo].pulls[n].MergeCalls
}

func (s *Server) mergePull(w http.ResponseWriter, r *http.Request, rp *Repo) {
	p, ok := rp.pulls[num(r, "n")]
	if !ok {
		notFound(w)
		return
	}
	var req struct {
		SHA         string `json:"sha"`
		MergeMethod string `json:"merge_method"`
	}
	decode(r, &req)
	s.refresh(rp, p)
	p.MergeCalls++
	switch {
	case p.State != "open":
		writeJSON(w, 405, map[string]string{"message": "Pull Request is not mergeable"})
	case req.SHA != "" && req.SHA != p.HeadSHA:
		writeJSON(w, 409, map[string]string{"message": "Head branch was modified. Review and try the merge again."})
	case s.mergeRefusal(rp, p, cmp.Or(req.MergeMethod, "merge")) != "":
		writeJSON(w, 405, map[string]string{"message": s.mergeRefusal(rp, p, cmp.Or(req.MergeMethod, "merge")),
			"documentation_url": "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request"})
	default:
		p.State, p.Merged, p.MergedWith = "closed", true, cmp.Or(req.MergeMethod, "merge")
		writeJSON(w, 200, map[string]any{"sha": p.HeadSHA, "merged": true, "message": "Pull Request successfully merged"})
	}
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request, rp *Repo) {
	out := []any{}
	for _, rv := range rp.reviews[num(r, "n")] {
		out = append(out, reviewJSON(rp, num(r, "n"), rv))
	}
	writeJSON(w, 200, out)
}

func (s *Server) createStatus(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var req struct{ State, Context, Description string }
	if !decode(r, &req) || req.State == "" {
		writeJSON(w, 422, map[string]string{"message": "Validation Failed"})
		return
	}
	if req.Context == "" {
		req.Context = "default"
	}
	sha := r.PathValue("sha")
	rp.statuses[sha] = append(rp.statuses[sha], Status{State: req.State, Context: req.Context, Description: req.Description, Creator: BotLogin})
	writeJSON(w, 201, statusJSON(rp, r.PathValue("sha"), s.id(), Status{State: req.State, Context: req.Context, Description: req.Description, Creator: BotLogin}))
}

// latestStatuses keeps the newest status per context, as GitHub's combined view does.
func latestStatuses(all []Status) []Status {
	seen := map[string]int{}
	var out []Status
	for _, st := range all {
		if i, ok := seen[st.Context]; ok {
			out[i] = st
			continue
		}
		seen[st.Context] = len(out)
		out = append(out, st)
	}
	return out
}

func (s *Server) combinedStatus(w http.ResponseWriter, r *http.Request, rp *Repo) {
	sts := latestStatuses(rp.statuses[r.PathValue("ref")])
	state, list := "success", []any{}
	for _, st := range sts {
		list = append(list, map[string]any{"state": st.State, "context": st.Context, "description": st.Description, "creator": user(st.Creator)})
		if st.State == "pending" && state == "success" {
			state = "pending"
		}
		if st.State == "failure" || st.State == "error" {
			state = "failure"
		}
	}
	if len(sts) == 0 {
		state = "pending"
	}
	writeJSON(w, 200, map[string]any{"state": state, "sha": r.PathValue("ref"), "total_count": len(list), "statuses": list})
}

func (s *Server) checkRuns(w http.ResponseWriter, r *http.Request, rp *Repo) {
	runs := []any{}
	for i, c := range rp.checks[r.PathValue("ref")] {
		run := checkRunJSON(c, i, r.PathValue("ref"))
		runs = append(runs, run)
	}
	writeJSON(w, 200, map[string]any{"total_count": len(runs), "check_runs": runs})
}

func (s *Server) contents(w http.ResponseWriter, r *http.Request, rp *Repo) {
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = rp.DefaultBranch
	}
	path := r.PathValue("path")
	out, err := exec.Command("git", "--git-dir="+strings.TrimPrefix(rp.CloneURL, "file://"), "show", ref+":"+path).Output()
	if err != nil {
		notFound(w)
		return
	}
	writeJSON(w, 200, map[string]any{"type": "file", "encoding": "base64", "name": path, "path": path, "sha": "x",
		"content": base64.StdEncoding.EncodeToString(out)})
}

// GitHub computes a PR's mergeability in the background: the PR's own GET
// answers `mergeable: null` until it is done (and after each push to the
// head or the base), then true or false; listings and the create answer
// carry no computed value. The fake's GET answers true, false when a test
// says the PR conflicts, and null while a test says GitHub is still
// computing (it does not start computing again on a push by itself), so a
// client that took null for "mergeable" is caught.

// SetMergeable sets what GET pulls/{n} answers once computed: false for a
// conflict with the base, true, or nil for the fake's own answer (true).
func (s *Server) SetMergeable(repo string, pr int, v *bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].pulls[pr].Mergeable = v
}

// SetMergeableComputing makes the next n GETs of the PR answer
// `mergeable: null`, as while GitHub is still computing it; n < 0 answers
// null until the next call.
func (s *Server) SetMergeableComputing(repo string, pr, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].pulls[pr].Computing = n
}

// mergeable is the value a GET of p answers (the caller holds s.mu); each
// answer while computing counts down.
func mergeable(p *Pull) *bool {
	switch {
	case p.Computing < 0:
		return nil
	case p.Computing > 0:
		p.Computing--
		return nil
	case p.Mergeable != nil:
		v := *p.Mergeable
		return &v
	}
	v := true
	return &v
}
