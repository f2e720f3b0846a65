package runner

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// fullName is what GitHub allows in an owner and a repository name: no
// slashes, dots-only names or URL syntax that could move the clone
// elsewhere.
var fullName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// CloneURL is where repo is fetched from and pushed to, with the
// installation token: derived from the GitHub web URL the operator
// configured (WARDEN_GITHUB_URL) and the repository's full name, never taken
// from a task payload. A payload is data in Redis; a URL in it would choose
// where the token goes.
func CloneURL(githubURL, repo string) (string, error) {
	if !fullName.MatchString(repo) || strings.Contains(repo, "..") || strings.HasSuffix(repo, ".") {
		return "", fmt.Errorf("repository name %q is not an owner/name GitHub allows", repo)
	}
	u, err := url.Parse(githubURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("WARDEN_GITHUB_URL %q is not an http(s) URL", githubURL)
	}
	return strings.TrimSuffix(u.String(), "/") + "/" + strings.TrimSuffix(repo, ".git") + ".git", nil
}
