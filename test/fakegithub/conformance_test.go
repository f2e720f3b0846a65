package fakegithub_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/gitfixture"
)

// notREST are the fake's routes that are not REST operations, each with
// what it stands for on GitHub.
var notREST = map[string]string{
	"POST /graphql":                               "the GraphQL endpoint (its fields are not in the REST description)",
	"GET /_logs/{owner}/{repo}/{id}":              "where GitHub's job-log redirect points (blob storage, not the API)",
	"GET /settings/apps/new":                      "github.com's App-manifest page (web, not the API)",
	"POST /settings/apps/new":                     "github.com's App-manifest form (web)",
	"POST /settings/apps/new/confirm":             "the manifest page's confirm button (web)",
	"GET /organizations/{org}/settings/apps/new":  "an organisation's App-manifest page (web)",
	"POST /organizations/{org}/settings/apps/new": "an organisation's App-manifest form (web)",
}

// routes lists the fake's "METHOD /path" patterns from its source.
func routes(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("*.go")
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "HandleFunc" && len(c.Args) > 0 {
					if lit, ok := c.Args[0].(*ast.BasicLit); ok {
						out = append(out, strings.Trim(lit.Value, `"`))
					}
				}
			}
			return true
		})
	}
	return out
}

var param = regexp.MustCompile(`\{[^}]*\}`)

// template is a path with its parameters' names dropped: the fake's {n}
// and GitHub's {issue_number} are the same segment; {ref...} is {ref}.
func template(route string) string { return param.ReplaceAllString(route, "{}") }

// described reads the operations of GitHub's description (the extract
// package githubapp checks Warden's own calls with).
func described(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "github", "githubapp", "testdata", "openapi", "api.github.com.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			out[template(l)] = true
		}
	}
	return out
}

// Every route the fake serves is an operation of api.github.com's
// description (method and path template), or one of notREST.
func TestFakeRoutesAreGitHubsOperations(t *testing.T) {
	ops, problems := described(t), 0
	for _, r := range routes(t) {
		if _, ok := notREST[r]; ok {
			continue
		}
		if !ops[template(r)] {
			problems++
			t.Errorf("the fake serves %q, which api.github.com's description lacks (or its extract: widen the prefixes in github/githubapp/operations_test.go)", r)
		}
	}
	t.Logf("%d routes, %d conformance problems", len(routes(t)), problems)
}

// required reads testdata/required.txt: operation → whether the answer is
// an array, and the fields each object must carry.
func required(t *testing.T) map[string]struct {
	array  bool
	fields []string
} {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "required.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]struct {
		array  bool
		fields []string
	}{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || strings.HasPrefix(l, "#") {
			continue
		}
		key, list := f[0]+" "+f[1], f[len(f)-1]
		out[key] = struct {
			array  bool
			fields []string
		}{f[3] == "[]", strings.Split(list, ",")}
	}
	return out
}

// call makes one request to the fake and decodes its answer.
func call(t *testing.T, gh *fakegithub.Server, token, method, path string, body any) any {
	t.Helper()
	var rd *strings.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	} else {
		rd = strings.NewReader("")
	}
	req, _ := http.NewRequest(method, gh.URL()+path, rd)
	req.Header.Set("Authorization", "token "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %v %v", method, path, resp.StatusCode, v, err)
	}
	return v
}

// The fake's answers to the most used operations carry every field
// GitHub's description marks required (top level; of each item for a list).
func TestFakeAnswersCarryRequiredFields(t *testing.T) {
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	_, cloneURL := gitfixture.NewRepo(t, map[string]string{"a.go": "package a\n"})
	gh.AddRepo("acme", "calc", cloneURL, "main")
	gh.AddIssue("acme/calc", 1, "t", "b", "alice", "bug")
	gh.SetPermission("acme/calc", "alice", "write")
	tok := gh.InstallationToken(1)
	c := github.NewClient(nil).WithAuthToken(tok)
	c.BaseURL, _ = url.Parse(gh.URL() + "/")
	pr, _, err := c.PullRequests.Create(context.Background(), "acme", "calc", &github.NewPullRequest{Title: github.String("t"), Head: github.String("main"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	n, sha := pr.GetNumber(), pr.GetHead().GetSHA()
	gh.AddReview("acme/calc", n, "alice", "APPROVED", sha)
	r := "/repos/acme/calc"
	comment := call(t, gh, tok, "POST", r+"/issues/1/comments", map[string]any{"body": "hi"}).(map[string]any)
	answers := map[string]any{
		"POST /repos/{owner}/{repo}/pulls":                                   call(t, gh, tok, "GET", fmt.Sprintf("%s/pulls/%d", r, n), nil), // the same pull-request object
		"GET /repos/{owner}/{repo}/pulls":                                    call(t, gh, tok, "GET", r+"/pulls", nil),
		"GET /repos/{owner}/{repo}/pulls/{pull_number}":                      call(t, gh, tok, "GET", fmt.Sprintf("%s/pulls/%d", r, n), nil),
		"GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews":              call(t, gh, tok, "GET", fmt.Sprintf("%s/pulls/%d/reviews", r, n), nil),
		"POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers": call(t, gh, tok, "POST", fmt.Sprintf("%s/pulls/%d/requested_reviewers", r, n), map[string]any{"reviewers": []string{"alice"}}),
		"GET /repos/{owner}/{repo}/issues/{issue_number}":                    call(t, gh, tok, "GET", r+"/issues/1", nil),
		"POST /repos/{owner}/{repo}/issues":                                  call(t, gh, tok, "POST", r+"/issues", map[string]any{"title": "x", "body": "y"}),
		"POST /repos/{owner}/{repo}/issues/{issue_number}/comments":          comment,
		"GET /repos/{owner}/{repo}/issues/{issue_number}/comments":           call(t, gh, tok, "GET", r+"/issues/1/comments", nil),
		"PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}":           call(t, gh, tok, "PATCH", fmt.Sprintf("%s/issues/comments/%v", r, comment["id"]), map[string]any{"body": "edited"}),
		"POST /repos/{owner}/{repo}/issues/{issue_number}/labels":            call(t, gh, tok, "POST", r+"/issues/1/labels", map[string]any{"labels": []string{"bug"}}),
		"POST /repos/{owner}/{repo}/statuses/{sha}":                          call(t, gh, tok, "POST", r+"/statuses/"+sha, map[string]any{"state": "pending", "context": "warden/mode"}),
		"GET /repos/{owner}/{repo}/commits/{ref}/statuses":                   call(t, gh, tok, "GET", r+"/commits/"+sha+"/statuses", nil),
		"POST /repos/{owner}/{repo}/check-runs":                              call(t, gh, tok, "POST", r+"/check-runs", map[string]any{"name": "Warden", "head_sha": sha, "status": "completed", "conclusion": "success", "output": map[string]any{"title": "t", "summary": "s"}}),
		"GET /repos/{owner}/{repo}/commits/{ref}/check-runs":                 call(t, gh, tok, "GET", r+"/commits/"+sha+"/check-runs", nil),
		"GET /repos/{owner}/{repo}/collaborators/{username}/permission":      call(t, gh, tok, "GET", r+"/collaborators/alice/permission", nil),
	}
	problems := 0
	for op, want := range required(t) {
		got, ok := answers[op]
		if !ok {
			t.Errorf("%s: no answer checked (add it to the test)", op)
			continue
		}
		objs := []any{got}
		if want.array {
			objs, _ = got.([]any)
			if len(objs) == 0 {
				t.Errorf("%s: an empty list checks nothing", op)
			}
		}
		for _, o := range objs {
			m, _ := o.(map[string]any)
			var missing []string
			for _, f := range want.fields {
				if _, ok := m[f]; !ok {
					missing = append(missing, f)
				}
			}
			if len(missing) > 0 {
				problems += len(missing)
				t.Errorf("%s: the fake's answer lacks required %s", op, strings.Join(missing, ", "))
			}
		}
	}
	t.Logf("%d operations checked, %d missing required fields", len(answers), problems)
}
