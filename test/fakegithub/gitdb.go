package fakegithub

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// The Git Database API (blobs, trees, commits, refs) on the repository's
// bare clone, so every SHA it answers is git's own: a tree the fake builds
// is the tree git would write. A commit created without author or
// committer is the App's, committed by GitHub, and Verified (APICommit).

func (s *Server) gitDBRoutes(m *http.ServeMux) {
	m.HandleFunc("POST /repos/{owner}/{repo}/git/blobs", s.repo(s.createBlob))
	m.HandleFunc("POST /repos/{owner}/{repo}/git/trees", s.repo(s.createTree))
	m.HandleFunc("POST /repos/{owner}/{repo}/git/commits", s.repo(s.createCommit))
	m.HandleFunc("GET /repos/{owner}/{repo}/git/commits/{sha}", s.repo(s.getCommit))
	m.HandleFunc("GET /repos/{owner}/{repo}/git/ref/{ref...}", s.repo(s.getRef))
	m.HandleFunc("POST /repos/{owner}/{repo}/git/refs", s.repo(s.createRef))
	m.HandleFunc("PATCH /repos/{owner}/{repo}/git/refs/{ref...}", s.repo(s.updateRef))
}

// APICommit reports whether sha is a commit the fake created through the
// Git Database API, signed as GitHub signs them.
func (s *Server) APICommit(repo, sha string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repos[repo].apiCommits[sha]
}

func bareOf(rp *Repo) string { return strings.TrimPrefix(rp.CloneURL, "file://") }

// gitRun runs git on rp's bare repository.
func gitRun(rp *Repo, stdin string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"--git-dir=" + bareOf(rp)}, args...)...)
	cmd.Env = append(cmd.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// unprocessable is GitHub's 422 with its message.
func unprocessable(w http.ResponseWriter, msg, doc string) {
	writeJSON(w, 422, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest/git/" + doc, "status": "422"})
}

func (s *Server) createBlob(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var in struct{ Content, Encoding string }
	if !decode(r, &in) {
		unprocessable(w, "Invalid request.", "blobs#create-a-blob")
		return
	}
	content := in.Content
	if in.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(in.Content)
		if err != nil {
			unprocessable(w, "Invalid request.\n\ncontent is not valid Base64", "blobs#create-a-blob")
			return
		}
		content = string(b)
	}
	sha, err := gitRun(rp, content, nil, "hash-object", "-w", "--stdin")
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	writeJSON(w, 201, map[string]any{"sha": sha, "url": s.base(r) + r.URL.Path + "/" + sha})
}

func (s *Server) createCommit(w http.ResponseWriter, r *http.Request, rp *Repo) {
	var in struct {
		Message, Tree     string
		Parents           []string
		Author, Committer map[string]any
	}
	if !decode(r, &in) || in.Tree == "" {
		unprocessable(w, "Invalid request.", "commits#create-a-commit")
		return
	}
	if t, _ := gitRun(rp, "", nil, "cat-file", "-t", in.Tree); t != "tree" {
		unprocessable(w, "Tree SHA does not exist", "commits#create-a-commit")
		return
	}
	args := []string{"commit-tree", in.Tree}
	for _, p := range in.Parents {
		if t, _ := gitRun(rp, "", nil, "cat-file", "-t", p); t != "commit" {
			unprocessable(w, "Parent SHA does not exist or is not a commit object", "commits#create-a-commit")
			return
		}
		args = append(args, "-p", p)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	author := map[string]any{"name": BotLogin, "email": fmt.Sprintf("%d+%s@users.noreply.github.com", BotUserID, BotLogin), "date": now}
	committer := map[string]any{"name": "GitHub", "email": "noreply@github.com", "date": now}
	signed := in.Author == nil && in.Committer == nil // GitHub signs what it authors for the App
	if in.Author != nil {
		author = in.Author
	}
	if in.Committer != nil {
		committer = in.Committer
	}
	env := []string{"GIT_AUTHOR_NAME=" + fmt.Sprint(author["name"]), "GIT_AUTHOR_EMAIL=" + fmt.Sprint(author["email"]),
		"GIT_COMMITTER_NAME=" + fmt.Sprint(committer["name"]), "GIT_COMMITTER_EMAIL=" + fmt.Sprint(committer["email"])}
	sha, err := gitRun(rp, in.Message, env, append(args, "-F", "-")...)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	if rp.apiCommits == nil {
		rp.apiCommits = map[string]bool{}
	}
	rp.apiCommits[sha] = signed
	parents := []any{}
	for _, p := range in.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": s.base(r) + "/repos/" + rp.Owner + "/" + rp.Name + "/git/commits/" + p})
	}
	reason := "unsigned"
	if signed {
		reason = "valid"
	}
	writeJSON(w, 201, map[string]any{"sha": sha, "node_id": "C_" + sha[:12], "url": s.base(r) + r.URL.Path + "/" + sha,
		"html_url": "https://github.test/" + rp.Owner + "/" + rp.Name + "/commit/" + sha, "author": author, "committer": committer,
		"message": in.Message, "tree": map[string]any{"sha": in.Tree, "url": s.base(r) + "/repos/" + rp.Owner + "/" + rp.Name + "/git/trees/" + in.Tree},
		"parents": parents, "verification": map[string]any{"verified": signed, "reason": reason, "signature": nil, "payload": nil, "verified_at": nil}})
}

// InstallationToken issues a token of installation inst, as the access
// token endpoint does, for tests that call the API with their own client.
func (s *Server) InstallationToken(inst int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.installs[inst] = true
	tok := "ghs_" + randHex(18)
	s.tokens[tok] = inst
	return tok
}
