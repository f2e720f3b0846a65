package githubapp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

// TestErrorAnswersFreeTheirTimer: a 422 read through go-github (which swaps
// the error body for a copy and never closes the original) leaves no
// goroutine waiting for the client's timeout.
func TestErrorAnswersFreeTheirTimer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(422)
		w.Write([]byte(`{"message":"Validation Failed","errors":[{"message":"A pull request already exists"}]}`))
	}))
	defer srv.Close()
	c := (&App{baseURL: srv.URL}).newClient(NewRetryTransport(http.DefaultTransport)) // as installations get theirs
	head, base := "b", "main"
	c.PullRequests.Create(context.Background(), "o", "r", &github.NewPullRequest{Head: &head, Base: &base})
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	for range 20 {
		if _, _, err := c.PullRequests.Create(context.Background(), "o", "r", &github.NewPullRequest{Head: &head, Base: &base}); err == nil {
			t.Fatal("want the 422")
		}
	}
	// Finished requests' goroutines end as the scheduler gets to them: wait
	// for that, well inside the 30 s a leaked one would be held for.
	n := runtime.NumGoroutine()
	for end := time.Now().Add(10 * time.Second); n > before+2 && time.Now().Before(end); n = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if n > before+2 {
		t.Fatalf("%d goroutines after 20 answered 422s, %d before", n, before)
	}
}
