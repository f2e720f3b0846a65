package pipeline

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"
)

// ghesIssues answers like GitHub Enterprise Server 3.19: issues can be
// created and edited, the sub-issues endpoint does not exist (404).
type ghesIssues struct {
	mu      sync.Mutex
	body    string
	created int
}

func (g *ghesIssues) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == "POST" && r.URL.Path == "/repos/o/r/issues":
		g.created++
		json.NewEncoder(w).Encode(map[string]any{"id": 900 + g.created, "number": 10 + g.created})
	case strings.HasSuffix(r.URL.Path, "/sub_issues"):
		w.WriteHeader(404)
		w.Write([]byte(`{"message":"Not Found","documentation_url":"https://docs.github.com/enterprise-server@3.19/rest"}`))
	case r.Method == "GET" && r.URL.Path == "/repos/o/r/issues/3":
		json.NewEncoder(w).Encode(map[string]any{"number": 3, "state": "open", "body": g.body})
	case r.Method == "PATCH" && r.URL.Path == "/repos/o/r/issues/3":
		var req struct{ Body string }
		json.NewDecoder(r.Body).Decode(&req)
		g.body = req.Body
		json.NewEncoder(w).Encode(map[string]any{"number": 3, "body": g.body})
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
	}
}

// Without a sub-issues API the decomposition does not fail: the parent
// gets a task list of its subtasks, written once even when decomposed again.
func TestDecomposeWithoutSubIssuesWritesATaskList(t *testing.T) {
	api := &ghesIssues{body: "Split the parser."}
	srv := httptest.NewServer(api)
	defer srv.Close()
	c := github.NewClient(nil)
	c.BaseURL, _ = url.Parse(srv.URL + "/")
	h := &GitHubHost{Client: c, Owner: "o", Name: "r", Number: 3, Prefix: "warden"}
	got, err := h.Decompose(context.Background(), []Subtask{{Title: "lexer", Body: "a"}, {Title: "grammar", Body: "b"}})
	if err != nil || len(got) != 2 {
		t.Fatalf("Decompose = %v, %v", got, err)
	}
	if !strings.HasPrefix(api.body, "Split the parser.") || !strings.Contains(api.body, "- [ ] #11\n- [ ] #12\n") {
		t.Fatalf("parent body = %q", api.body)
	}
	if _, err := h.Decompose(context.Background(), []Subtask{{Title: "lexer", Body: "a"}}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(api.body, "<!-- warden:subtasks -->") != 1 || strings.Contains(api.body, "#11") || !strings.Contains(api.body, "- [ ] #13") {
		t.Fatalf("task list not replaced: %q", api.body)
	}
}
