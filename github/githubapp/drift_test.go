package githubapp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// handBuilt are the REST calls Warden makes without a go-github method
// (NewRequest by hand, or inside a library), by the file that makes them.
// A file calling NewRequest that is not listed here fails the drift test.
var handBuilt = map[string][]string{
	"pipeline/github.go":         {"POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues"},
	"effects/reply.go":           {"POST /repos/{owner}/{repo}/pulls/{pull_number}/comments"},
	"github/branchrules/read.go": {"GET /repos/{owner}/{repo}/rules/branches/{branch}"},
	// ghinstallation (the App's installation tokens), outside this module
	"ghinstallation": {"POST /app/installations/{installation_id}/access_tokens"},
}

// variant is the one operation Warden uses of a go-github method that
// stands for several (by its arguments), and why.
var variant = map[string]string{
	"UsersService.Get":                 "GET /users/{username}",                                    // always a login: the bot's id
	"AppsService.Get":                  "GET /app",                                                 // "" slug: the authenticated App
	"IssuesService.ListComments":       "GET /repos/{owner}/{repo}/issues/{issue_number}/comments", // always one issue's
	"PullRequestsService.ListComments": "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",   // always one PR's
}

// serviceFields maps github.Client's service fields (Issues, Git …) to
// their types' names (IssuesService, GitService …).
func serviceFields() map[string]string {
	out := map[string]string{}
	ct := reflect.TypeOf(github.Client{})
	for i := range ct.NumField() {
		f := ct.Field(i)
		if f.IsExported() && f.Type.Kind() == reflect.Pointer && strings.HasSuffix(f.Type.Elem().Name(), "Service") {
			out[f.Name] = f.Type.Elem().Name()
		}
	}
	return out
}

// used walks Warden's non-test code (test/ aside) and returns the
// go-github methods it calls — directly (c.Issues.Get) or through a
// consumer interface declaring a service method's exact signature — and
// the files that build requests by hand.
func used(t *testing.T, root string, sigs map[sig][]string) (calls map[string][]string, hand []string) {
	t.Helper()
	services := serviceFields()
	calls = map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "test" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		af, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if sel.Sel.Name == "NewRequest" {
					hand = append(hand, rel)
				}
				if x, ok := sel.X.(*ast.SelectorExpr); ok && services[x.Sel.Name] != "" {
					calls[services[x.Sel.Name]+"."+sel.Sel.Name] = append(calls[services[x.Sel.Name]+"."+sel.Sel.Name], rel)
				}
			case *ast.InterfaceType:
				for _, m := range n.Methods.List {
					ft, ok := m.Type.(*ast.FuncType)
					if !ok || len(m.Names) != 1 {
						continue
					}
					for _, key := range sigs[signature(m.Names[0].Name, ft, "github.")] {
						calls[key] = append(calls[key], rel+" (interface)")
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(hand)
	return calls, hand
}

// The operations list is complete and current: every go-github method
// Warden's code calls (directly or through a consumer interface) and
// every hand-built request has its operation listed, and every listed
// operation is still called. A new call without its entry fails here,
// so TestOperationsAgainstGitHubsDescriptions checks it on GitHub's and
// GitHub Enterprise Server's descriptions.
func TestOperationsListMatchesTheCode(t *testing.T) {
	ops, sigs := gogithub(t)
	calls, hand := used(t, filepath.Join("..", ".."), sigs)
	listed := map[string]bool{}
	for _, op := range operations {
		listed[op.method+" "+op.path] = true
	}
	reached := map[string]bool{}
	for m, where := range calls {
		if len(ops[m]) == 0 {
			t.Errorf("%s (called in %s) names no operation in go-github's source", m, where[0])
		}
		these := ops[m]
		if v, ok := variant[m]; ok {
			if !slicesContains(these, v) {
				t.Errorf("variant %s of %s is not one of its operations %v", v, m, these)
			}
			these = []string{v}
		} else if len(these) > 1 {
			t.Errorf("%s stands for %v: name the one Warden uses in variant", m, these)
		}
		for _, op := range these {
			reached[op] = true
			if !listed[op] {
				t.Errorf("%s is called (%s, in %s) but not in the operations list", op, m, strings.Join(where, ", "))
			}
		}
	}
	for _, f := range hand {
		if _, ok := handBuilt[f]; !ok {
			t.Errorf("%s builds a request by hand: list its operation in handBuilt", f)
		}
	}
	for f, list := range handBuilt {
		for _, op := range list {
			reached[op] = true
			if !listed[op] {
				t.Errorf("%s (by hand, %s) is not in the operations list", op, f)
			}
		}
	}
	for op := range listed {
		if !reached[op] {
			t.Errorf("%s is listed but no code calls it any more", op)
		}
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
