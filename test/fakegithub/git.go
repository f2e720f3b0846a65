package fakegithub

import (
	"net/http"
	"net/http/cgi"
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
	mu   sync.Mutex
	reqs []GitRequest
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
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + filepath.Base(bare) + "/" + parts[2]
		h.ServeHTTP(w, r2)
	})
}
