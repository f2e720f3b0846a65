package fakegithub

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// listPullCommits is GET /repos/{owner}/{repo}/pulls/{n}/commits: the
// commits on the PR's head that its base lacks, oldest first, at most 250
// (GitHub's limit), paged by per_page and page.
func (s *Server) listPullCommits(w http.ResponseWriter, r *http.Request, rp *Repo) {
	p, ok := rp.pulls[num(r, "n")]
	if !ok {
		notFound(w)
		return
	}
	out, err := gitRun(rp, "", nil, "log", "--reverse", "--format=%H%x00%an%x00%ae%x00%s", "refs/heads/"+p.Base+"..refs/heads/"+p.Head, "--")
	if err != nil {
		writeJSON(w, 500, map[string]string{"message": "Server Error"})
		return
	}
	var all []any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if parts := strings.SplitN(line, "\x00", 4); len(parts) == 4 && len(all) < 250 {
			all = append(all, commitJSON(rp, parts[0], parts[1], parts[2], parts[3]))
		}
	}
	s.writePaged(w, r, all)
}

// commitJSON is a commit as GitHub's commit endpoints answer it, with
// the App's bot as `author` when the commit is one the App made (by git as
// the bot, or through the Git Database API), as GitHub links an author's
// e-mail to an account.
func commitJSON(rp *Repo, sha, name, email, msg string) map[string]any {
	u := fmt.Sprintf("%s/commits/%s", repoAPI(rp), sha)
	person := map[string]any{"name": name, "email": email, "date": "2026-01-01T00:00:00Z"}
	c := map[string]any{"sha": sha, "node_id": "C_" + sha[:7], "url": u, "html_url": "https://github.test/" + rp.Owner + "/" + rp.Name + "/commit/" + sha,
		"comments_url": u + "/comments", "parents": []any{}, "author": nil, "committer": nil,
		"commit": map[string]any{"message": msg, "author": person, "committer": person, "comment_count": 0, "url": u,
			"tree": map[string]any{"sha": sha, "url": u}}}
	if _, api := rp.apiCommits[sha]; api || name == BotLogin {
		c["author"] = user(BotLogin)
	}
	return c
}

// writePaged answers one page of all (per_page at most 100, 30 by
// default), with GitHub's Link header when another page follows.
func (s *Server) writePaged(w http.ResponseWriter, r *http.Request, all []any) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 || per > 100 {
		per = 30
	}
	pg, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pg = max(pg, 1)
	lo, hi := min((pg-1)*per, len(all)), min(pg*per, len(all))
	if hi < len(all) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(pg+1))
		q.Set("per_page", strconv.Itoa(per))
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, s.base(r), (&url.URL{Path: r.URL.Path, RawQuery: q.Encode()}).String()))
	}
	writeJSON(w, 200, append([]any{}, all[lo:hi]...))
}
