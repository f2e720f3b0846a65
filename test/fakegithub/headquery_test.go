package fakegithub

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/warden-bot/warden/test/gitfixture"
)

// The head query is answered from the state REST serves, in GitHub's
// GraphQL shape: a missing file and a commit without statuses are null; a
// Bot's login has no "[bot]"; enums are in capitals; runs hang under their
// suite, the first 100 with pageInfo saying more exist.
func TestHeadQueryAnswersGitHubsShape(t *testing.T) {
	s := New()
	defer s.Close()
	bare, cloneURL := gitfixture.NewRepo(t, map[string]string{".github/warden.yml": "maintenance: {auto_merge: false}\n"})
	s.AddRepo("acme", "calc", cloneURL, "main")
	s.tokens["tok"] = 1
	out, err := exec.Command("git", "--git-dir="+bare, "rev-parse", "main").Output()
	if err != nil {
		t.Fatal(err)
	}
	sha := strings.TrimSpace(string(out))
	ask := func(config string) map[string]any {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": "query($config:String!$head:GitObjectID!$name:String!$owner:String!){repository{checkSuites}}",
			"variables": map[string]any{"owner": "acme", "name": "calc", "config": config, "head": sha}})
		req, _ := http.NewRequest("POST", s.URL()+"/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "token tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m["data"].(map[string]any)["repository"].(map[string]any)
	}
	repo := ask("main:.github/nothing.yml")
	head := repo["head"].(map[string]any)
	if repo["config"] != nil || head["status"] != nil || len(head["checkSuites"].(map[string]any)["nodes"].([]any)) != 0 {
		t.Fatalf("empty head answered %v", repo)
	}
	s.SetStatus("acme/calc", sha, "warden/mode", "success", BotLogin)
	s.SetStatus("acme/calc", sha, "ci", "failure", "alice")
	for i := range 101 {
		s.SetCheckRun("acme/calc", sha, "shard-"+strings.Repeat("x", i), "completed", "success")
	}
	repo = ask("main:.github/warden.yml")
	head = repo["head"].(map[string]any)
	got, _ := json.Marshal(map[string]any{"config": repo["config"], "status": head["status"]})
	want := `{"config":{"__typename":"Blob","isTruncated":false,"text":"maintenance: {auto_merge: false}\n"},` +
		`"status":{"contexts":[{"context":"warden/mode","creator":{"__typename":"Bot","login":"warden-test"},"description":null,"state":"SUCCESS"},` +
		`{"context":"ci","creator":{"__typename":"User","login":"alice"},"description":null,"state":"FAILURE"}]}}`
	if string(got) != want {
		t.Fatalf("answered %s\nwant     %s", got, want)
	}
	suite := head["checkSuites"].(map[string]any)["nodes"].([]any)[0].(map[string]any)
	runs := suite["checkRuns"].(map[string]any)
	if suite["status"] != "COMPLETED" || suite["conclusion"] != "SUCCESS" || len(runs["nodes"].([]any)) != 100 ||
		runs["pageInfo"].(map[string]any)["hasNextPage"] != true || runs["nodes"].([]any)[0].(map[string]any)["status"] != "COMPLETED" {
		t.Fatalf("suite %v", suite)
	}
}
