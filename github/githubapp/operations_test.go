package githubapp

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// operation is one REST call Warden makes, as GitHub's OpenAPI description
// names it. ghes is false where the latest GitHub Enterprise Server
// description lacks it; degrade says what Warden does there instead.
type operation struct {
	method, path string
	ghes         bool
	degrade      string
}

// operations is every REST operation Warden calls (go-github methods and
// hand-built requests). A new call belongs here: TestOperationsListMatchesTheCode
// (drift_test.go) fails until it is, and the test below checks it against
// GitHub's descriptions.
var operations = []operation{
	{"POST", "/app/installations/{installation_id}/access_tokens", true, ""}, // ghinstallation
	{"GET", "/app", true, ""},
	{"POST", "/app-manifests/{code}/conversions", true, ""}, // bot setup
	{"GET", "/users/{username}", true, ""},                  // the bot user's id
	{"GET", "/repos/{owner}/{repo}", true, ""},
	{"GET", "/repos/{owner}/{repo}/contents/{path}", true, ""},
	{"GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", true, ""},
	{"GET", "/repos/{owner}/{repo}/rules/branches/{branch}", true, ""},
	{"GET", "/repos/{owner}/{repo}/branches/{branch}/protection", true, ""},
	{"POST", "/repos/{owner}/{repo}/issues", true, ""},
	{"GET", "/repos/{owner}/{repo}/issues", true, ""}, // the dashboard issue, found by title
	{"GET", "/repos/{owner}/{repo}/issues/{issue_number}", true, ""},
	{"PATCH", "/repos/{owner}/{repo}/issues/{issue_number}", true, ""},
	{"GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", true, ""},
	{"POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", true, ""},
	{"PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", true, ""},
	{"POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels", true, ""},
	{"PUT", "/repos/{owner}/{repo}/issues/{issue_number}/labels", true, ""},
	{"DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", true, ""},
	{"POST", "/repos/{owner}/{repo}/issues/{issue_number}/reactions", true, ""},
	{"POST", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues", false, "a task list of the sub-issues in the parent issue's body"},
	{"GET", "/repos/{owner}/{repo}/pulls", true, ""},
	{"POST", "/repos/{owner}/{repo}/pulls", true, ""},
	{"GET", "/repos/{owner}/{repo}/pulls/{pull_number}", true, ""},
	{"GET", "/repos/{owner}/{repo}/pulls/{pull_number}/commits", true, ""}, // is every commit of a PR found only on GitHub Warden's
	{"PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", true, ""},
	{"GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", true, ""},
	{"GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments", true, ""},
	{"GET", "/repos/{owner}/{repo}/pulls/{pull_number}/comments", true, ""},
	{"POST", "/repos/{owner}/{repo}/pulls/{pull_number}/comments", true, ""}, // thread replies (in_reply_to)
	{"POST", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", true, ""},
	{"POST", "/repos/{owner}/{repo}/statuses/{sha}", true, ""},
	{"GET", "/repos/{owner}/{repo}/commits/{ref}/statuses", true, ""},
	{"GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", true, ""},
	{"GET", "/repos/{owner}/{repo}/commits/{ref}/check-suites", true, ""},
	{"POST", "/repos/{owner}/{repo}/check-runs", true, ""}, // the Warden check run with the transcript
	{"GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations", true, ""},
	// signed commits (gitdb): blobs, a tree, a commit, the ref read, created or moved
	{"POST", "/repos/{owner}/{repo}/git/blobs", true, ""},
	{"POST", "/repos/{owner}/{repo}/git/trees", true, ""},
	{"POST", "/repos/{owner}/{repo}/git/commits", true, ""},
	{"GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}", true, ""}, // the effects sweep: is the branch at GitHub's commit of a pushed tree
	{"GET", "/repos/{owner}/{repo}/git/ref/{ref}", true, ""},
	{"POST", "/repos/{owner}/{repo}/git/refs", true, ""},
	{"PATCH", "/repos/{owner}/{repo}/git/refs/{ref}", true, ""},
	{"GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs", true, ""},
}

func described(t *testing.T, platform string) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "openapi", platform+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	return out
}

// Every REST operation Warden calls exists in GitHub's description of
// api.github.com; on the latest GitHub Enterprise Server description it
// exists too, or Warden has a degraded path for it. The testdata are the
// operations under the paths Warden uses, extracted from
// @octokit/openapi@23.0.2 (generated/<platform>.json, GitHub's
// rest-api-description) with:
//
//	jq -r '.paths | to_entries[] | .key as $p | .value | keys[] | select(test("get|post|put|patch|delete")) | ascii_upcase + " " + $p'
//
// filtered to the path prefixes of the list above and of the fake GitHub's
// routes (/app…, /users/{username}, /repos/{owner}/{repo} and its actions/jobs,
// branches, check-runs, check-suites, collaborators, commits, contents, git,
// issues, pulls, rules and statuses).
func TestOperationsAgainstGitHubsDescriptions(t *testing.T) {
	dotcom, ghes := described(t, "api.github.com"), described(t, "ghes-3.19")
	for _, op := range operations {
		key := op.method + " " + op.path
		if !dotcom[key] {
			t.Errorf("%s is not in api.github.com's description", key)
		}
		switch {
		case ghes[key] && !op.ghes:
			t.Errorf("%s is on GitHub Enterprise Server 3.19 now: drop its degraded path", key)
		case !ghes[key] && op.ghes:
			t.Errorf("%s is not in GitHub Enterprise Server 3.19's description and Warden has no degraded path", key)
		case !ghes[key] && op.degrade == "":
			t.Errorf("%s: say what Warden does on GitHub Enterprise Server", key)
		}
	}
}
