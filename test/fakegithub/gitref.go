package fakegithub

import (
	"net/http"
	"strings"
)

func (s *Server) refJSON(r *http.Request, rp *Repo, ref, sha string) map[string]any {
	api := s.base(r) + "/repos/" + rp.Owner + "/" + rp.Name
	return map[string]any{"ref": ref, "node_id": "REF_" + sha[:12], "url": api + "/git/" + ref,
		"object": map[string]any{"type": "commit", "sha": sha, "url": api + "/git/commits/" + sha}}
}

func (s *Server) getRef(w http.ResponseWriter, r *http.Request, rp *Repo) {
	ref := "refs/" + r.PathValue("ref")
	sha, err := gitRun(rp, "", nil, "rev-parse", "--verify", "--quiet", ref)
	if err != nil || sha == "" {
		notFound(w)
		return
	}
	writeJSON(w, 200, s.refJSON(r, rp, ref, sha))
}

// getCommit answers a commit's tree and parents, as git has them (the
// effects journal's re-read of an API-made commit).
func (s *Server) getCommit(w http.ResponseWriter, r *http.Request, rp *Repo) {
	sha := r.PathValue("sha")
	if t, _ := gitRun(rp, "", nil, "cat-file", "-t", sha); t != "commit" {
		notFound(w)
		return
	}
	out, err := gitRun(rp, "", nil, "show", "-s", "--format=%T%n%P%n%B", sha)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	lines := strings.SplitN(out, "\n", 3)
	api := s.base(r) + "/repos/" + rp.Owner + "/" + rp.Name + "/git"
	parents := []any{}
	for _, p := range strings.Fields(lines[1]) {
		parents = append(parents, map[string]any{"sha": p, "url": api + "/commits/" + p})
	}
	msg := ""
	if len(lines) > 2 {
		msg = lines[2]
	}
	writeJSON(w, 200, map[string]any{"sha": sha, "node_id": "C_" + sha[:12], "url": api + "/commits/" + sha,
		"html_url": "https://github.test/" + rp.Owner + "/" + rp.Name + "/commit/" + sha, "message": msg,
		"tree": map[string]any{"sha": lines[0], "url": api + "/trees/" + lines[0]}, "parents": parents,
		"author": map[string]any{}, "committer": map[string]any{},
		"verification": map[string]any{"verified": rp.apiCommits[sha], "reason": map[bool]string{true: "valid", false: "unsigned"}[rp.apiCommits[sha]], "signature": nil, "payload": nil, "verified_at": nil}})
}

func (s *Server) createRef(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var in struct{ Ref, SHA string }
	if !decode(r, &in) || !strings.HasPrefix(in.Ref, "refs/") || strings.Count(in.Ref, "/") < 2 {
		unprocessable(w, "Reference name must start with 'refs/' and have at least two slashes.", "refs#create-a-reference")
		return
	}
	if old, _ := gitRun(rp, "", nil, "rev-parse", "--verify", "--quiet", in.Ref); old != "" {
		unprocessable(w, "Reference already exists", "refs#create-a-reference")
		return
	}
	if t, _ := gitRun(rp, "", nil, "cat-file", "-t", in.SHA); t != "commit" {
		unprocessable(w, "Object does not exist", "refs#create-a-reference")
		return
	}
	if _, err := gitRun(rp, "", nil, "update-ref", in.Ref, in.SHA, ""); err != nil {
		unprocessable(w, "Reference already exists", "refs#create-a-reference")
		return
	}
	writeJSON(w, 201, s.refJSON(r, rp, in.Ref, in.SHA))
}

// updateRef moves a ref: a fast-forward, or anything when forced.
func (s *Server) updateRef(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var in struct {
		SHA   string
		Force bool
	}
	ref := "refs/" + r.PathValue("ref")
	if !decode(r, &in) {
		unprocessable(w, "Invalid request.", "refs#update-a-reference")
		return
	}
	old, _ := gitRun(rp, "", nil, "rev-parse", "--verify", "--quiet", ref)
	if old == "" {
		unprocessable(w, "Reference does not exist", "refs#update-a-reference")
		return
	}
	if t, _ := gitRun(rp, "", nil, "cat-file", "-t", in.SHA); t != "commit" {
		unprocessable(w, "Object does not exist", "refs#update-a-reference")
		return
	}
	if !in.Force {
		if _, err := gitRun(rp, "", nil, "merge-base", "--is-ancestor", old, in.SHA); err != nil {
			unprocessable(w, "Update is not a fast forward", "refs#update-a-reference")
			return
		}
	}
	if _, err := gitRun(rp, "", nil, "update-ref", ref, in.SHA, old); err != nil {
		unprocessable(w, "Update is not a fast forward", "refs#update-a-reference")
		return
	}
	writeJSON(w, 200, s.refJSON(r, rp, ref, in.SHA))
}
