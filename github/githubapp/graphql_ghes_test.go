package githubapp

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// graphqlUnchecked are mutations Warden sends whose presence on GitHub
// Enterprise Server 3.19 was not read from its schema, with what happens
// there if it is missing.
var graphqlUnchecked = map[string]string{
	"removeLabelsFromLabelable": "sent in the same request as addLabelsToLabelable (pipeline/labelswap.go); any GraphQL error falls back to REST label calls",
}

var mutationInput = regexp.MustCompile(`githubv4\.([A-Z]\w*)Input\{`)

// Every GraphQL mutation Warden's code sends (its githubv4 input type) is
// in GitHub Enterprise Server 3.19's schema, or listed as unchecked with
// its fallback.
func TestGraphQLMutationsOnEnterpriseServer(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "graphql-ghes-3.19-mutations.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ghes := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			ghes[l] = true
		}
	}
	sent := map[string]string{}
	root := filepath.Join("..", "..")
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if err == nil && d.IsDir() && (d.Name() == "test" || strings.HasPrefix(d.Name(), ".") && p != root) {
				return filepath.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		for _, m := range mutationInput.FindAllStringSubmatch(string(src), -1) {
			sent[strings.ToLower(m[1][:1])+m[1][1:]] = p
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sent) == 0 {
		t.Fatal("no mutation found: the scan is broken")
	}
	for m, where := range sent {
		if _, ok := graphqlUnchecked[m]; !ghes[m] && !ok {
			t.Errorf("%s (sent in %s) is not known to be in GitHub Enterprise Server 3.19's schema: check it and list it, or say its fallback in graphqlUnchecked", m, where)
		}
	}
}
