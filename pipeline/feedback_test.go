package pipeline

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/comments"
)

// fakeIssueAPI serves one issue with its labels (a human's "bug" label, the
// mode label, warden:queued in the first test) and one comment (Warden's queued status, id 55), and
// records every call.
type fakeIssueAPI struct {
	mu     sync.Mutex
	labels []string
	calls  []string
}

func (f *fakeIssueAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	f.calls = append(f.calls, r.Method+" "+strings.TrimPrefix(r.URL.Path, "/repos/o/r/issues/"))
	labels := func() {
		var out []map[string]string
		for _, l := range f.labels {
			out = append(out, map[string]string{"name": l})
		}
		json.NewEncoder(w).Encode(out)
	}
	switch {
	case r.Method == "GET" && r.URL.Path == "/repos/o/r/issues/3":
		var ls []map[string]string
		for _, l := range f.labels {
			ls = append(ls, map[string]string{"name": l})
		}
		json.NewEncoder(w).Encode(map[string]any{"number": 3, "state": "open", "comments": 1, "labels": ls})
	case r.Method == "PUT":
		json.Unmarshal(body, &f.labels)
		labels()
	case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/labels"):
		var add []string
		json.Unmarshal(body, &add)
		f.labels = append(f.labels, add...)
		labels()
	case r.Method == "DELETE":
		name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		for i, l := range f.labels {
			if l == name {
				f.labels = append(f.labels[:i], f.labels[i+1:]...)
				break
			}
		}
		labels()
	case r.Method == "PATCH":
		json.NewEncoder(w).Encode(map[string]any{"id": 55})
	default:
		http.Error(w, "unexpected", http.StatusTeapot)
	}
}

// TestRunReusesWhatTheQueuedUpdateWrote: the run neither lists the
// comments (the count shows only the known status comment) nor spends two
// calls on its first state; its later swaps keep a label added meanwhile.
func TestRunReusesWhatTheQueuedUpdateWrote(t *testing.T) {
	api := &fakeIssueAPI{labels: []string{"bug", "warden:maintenance", "warden:queued"}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	client := github.NewClient(nil)
	client.BaseURL, _ = url.Parse(srv.URL + "/")
	h := &GitHubHost{Client: client, Owner: "o", Name: "r", Number: 3, Prefix: "warden", BotLogin: "warden[bot]",
		Poster:      &comments.Poster{Client: client.Issues, BotLogin: "warden[bot]", Redactor: comments.NewRedactor(), Remember: true},
		KnownStatus: func(context.Context) int64 { return 55 }}
	ctx := context.Background()
	if _, err := h.Issue(ctx); err != nil {
		t.Fatal(err)
	}
	if recs, err := h.PriorOutcomes(ctx); err != nil || len(recs) != 0 {
		t.Fatalf("prior outcomes %v, %v", recs, err)
	}
	if err := h.State(ctx, StateRunning); err != nil {
		t.Fatal(err)
	}
	if err := h.Status(ctx, comments.Status{Mode: "maintenance", State: StateRunning}); err != nil {
		t.Fatal(err)
	}
	api.mu.Lock()
	api.labels = append(api.labels, "priority") // a maintainer adds a label mid-run
	api.mu.Unlock()
	if err := h.State(ctx, StatePROpen); err != nil {
		t.Fatal(err)
	}
	want := "GET 3 PUT 3/labels PATCH comments/55 POST 3/labels DELETE 3/labels/warden:running"
	if got := strings.Join(api.calls, " "); got != want {
		t.Errorf("calls:\n %s\nwant\n %s", got, want)
	}
	if got := strings.Join(api.labels, ","); got != "bug,warden:maintenance,priority,warden:pr-open" {
		t.Errorf("labels %s", got)
	}
}

// A settled issue looked at again (a late event about its merged PR) is
// read, and its state label, already the one wanted, is not written.
func TestStateAlreadySetCostsNoCall(t *testing.T) {
	api := &fakeIssueAPI{labels: []string{"bug", "warden:maintenance", "warden:completed"}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	client := github.NewClient(nil)
	client.BaseURL, _ = url.Parse(srv.URL + "/")
	h := &GitHubHost{Client: client, Owner: "o", Name: "r", Number: 3, Prefix: "warden", BotLogin: "warden[bot]"}
	ctx := context.Background()
	if _, err := h.Issue(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.State(ctx, StateCompleted); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(api.calls, " "); got != "GET 3" {
		t.Errorf("calls %q, want only the issue read", got)
	}
}

// A run reads its issue under the status lock, so a "queued" update (which
// writes its comment and label under that lock) is seen whole or not at all.
func TestRunReadsTheIssueUnderTheStatusLock(t *testing.T) {
	api := &fakeIssueAPI{labels: []string{"warden:maintenance"}}
	var events []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		events = append(events, r.Method)
		api.ServeHTTP(w, r)
	}))
	defer srv.Close()
	client := github.NewClient(nil)
	client.BaseURL, _ = url.Parse(srv.URL + "/")
	h := &GitHubHost{Client: client, Owner: "o", Name: "r", Number: 3, Prefix: "warden", BotLogin: "warden[bot]",
		StatusLock: func(context.Context) func() {
			events = append(events, "lock")
			return func() { events = append(events, "unlock") }
		}}
	if _, err := h.Issue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(events, " "); got != "lock GET unlock" {
		t.Fatalf("events %q, want the read inside the lock", got)
	}
}
