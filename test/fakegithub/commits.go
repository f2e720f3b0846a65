package fakegithub

import (
	"net/http"
	"strings"
)

// getCommit is GET /repos/{owner}/{repo}/commits/{ref}: the commit with
// its git author and, as GitHub links an author's e-mail to an account,
// the App's bot as `author` when the commit is one the App made (by git
// as the bot, or through the Git Database API).
func (s *Server) getCommit(w http.ResponseWriter, r *http.Request, rp *Repo) {
	ref := r.PathValue("ref")
	out, err := gitRun(rp, "", nil, "log", "-1", "--format=%H%x00%an%x00%ae%x00%s", ref, "--")
	parts := strings.SplitN(out, "\x00", 4)
	if err != nil || len(parts) != 4 {
		writeJSON(w, 422, map[string]string{"message": "No commit found for SHA: " + ref})
		return
	}
	sha, name, email, msg := parts[0], parts[1], parts[2], parts[3]
	commit := map[string]any{"sha": sha, "commit": map[string]any{"message": msg, "author": map[string]any{"name": name, "email": email}}}
	if _, api := rp.apiCommits[sha]; api || name == BotLogin {
		commit["author"] = user(BotLogin)
	}
	writeJSON(w, 200, commit)
}
