package fakegithub

import (
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// GitRequest is one request to the git endpoint, with the credential it carried.
type GitRequest struct {
	Path, Authorization string
}

// gitLog records the git endpoint's requests, apart from API calls (whose
// counts tests budget).
type gitLog struct {
	mu    sync.Mutex
	reqs  []GitRequest
	hooks string // the hooks directory that refuses unsigned pushes, once written
}

// refuseUnsigned is the pre-receive hook of a repository whose rules
// require signed commits: GitHub's GH013 refusal, in its words.
const refuseUnsigned = `#!/bin/sh
while read old new ref; do
  echo "error: GH013: Repository rule violations found for $ref." >&2
  echo "" >&2
  echo "- Commits must have verified signatures." >&2
  echo "  Found 1 violation:" >&2
  echo "" >&2
  echo "  $new" >&2
done
exit 1
`

// signatureHooks writes the refusing hook once and names its directory.
func (s *Server) signatureHooks() (string, error) {
	s.git.mu.Lock()
	defer s.git.mu.Unlock()
	if s.git.hooks != "" {
		return s.git.hooks, nil
	}
	dir, err := os.MkdirTemp("", "fakegithub-hooks")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "pre-receive"), []byte(refuseUnsigned), 0o755); err != nil {
		return "", err
	}
	s.git.hooks = dir
	return dir, nil
}

// GitURL is the web root repositories are cloned from, as WARDEN_GITHUB_URL
// names github.com: <GitURL><owner>/<name>.git.
func (s *Server) GitURL() string { return s.srv.URL + "/git/" }

// GitRequests are the requests the git endpoint answered.
func (s *Server) GitRequests() []GitRequest {
	s.git.mu.Lock()
	defer s.git.mu.Unlock()
	return append([]GitRequest(nil), s.git.reqs...)
}

// withGit serves /git/<owner>/<name>.git/… with git's smart HTTP protocol
// from the repository's bare clone (pushes included), as github.com serves
// clones; everything else goes to the API.
func (s *Server) withGit(api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/git/")
		if !ok {
			api.ServeHTTP(w, r)
			return
		}
		s.git.mu.Lock()
		s.git.reqs = append(s.git.reqs, GitRequest{Path: r.URL.Path, Authorization: r.Header.Get("Authorization")})
		s.git.mu.Unlock()
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) < 3 || !strings.HasSuffix(parts[1], ".git") {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		rp := s.repos[parts[0]+"/"+strings.TrimSuffix(parts[1], ".git")]
		signed := rp != nil && rp.rules.rule("required_signatures") != nil
		s.mu.Unlock()
		if rp == nil || !strings.HasPrefix(rp.CloneURL, "file://") {
			http.NotFound(w, r)
			return
		}
		bare := strings.TrimPrefix(rp.CloneURL, "file://")
		gitBin, err := exec.LookPath("git")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h := &cgi.Handler{Path: gitBin, Args: []string{"http-backend"},
			Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(bare), "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=x-access-token"}}
		if signed { // a push is refused as GitHub refuses it: git cannot sign as GitHub
			hooks, err := s.signatureHooks()
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			h.Env = append(h.Env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="+hooks)
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + filepath.Base(bare) + "/" + parts[2]
		h.ServeHTTP(w, r2)
	})
}
