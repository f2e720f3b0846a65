package pipeline

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/comments"
)

// issueComments is an issue's comments in memory.
type issueComments struct {
	mu sync.Mutex
	cs []*github.IssueComment
}

func (f *issueComments) ListComments(context.Context, string, string, int, *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*github.IssueComment, len(f.cs))
	for i, c := range f.cs {
		cp := *c
		out[i] = &cp
	}
	return out, &github.Response{}, nil
}

func (f *issueComments) CreateComment(_ context.Context, _, _ string, _ int, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	nc := &github.IssueComment{ID: github.Int64(int64(len(f.cs) + 1)), Body: c.Body, User: &github.User{Login: github.String("warden[bot]")}}
	f.cs = append(f.cs, nc)
	return nc, &github.Response{}, nil
}

func (f *issueComments) EditComment(_ context.Context, _, _ string, id int64, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, x := range f.cs {
		if x.GetID() == id {
			x.Body = c.Body
		}
	}
	return nil, &github.Response{}, nil
}

// A "queued" update being posted while a run starts: the run's remembered
// listing waits for it under the status lock, so the run edits the queued
// status comment instead of adding a second one.
func TestRunEditsTheQueuedStatusComment(t *testing.T) {
	f := &issueComments{}
	var lock sync.Mutex
	locked := make(chan struct{})
	queued := &comments.Poster{Client: f, BotLogin: "warden[bot]", Redactor: comments.NewRedactor()}
	go func() { // the queued update, slower than the run's listing
		lock.Lock()
		defer lock.Unlock()
		close(locked)
		time.Sleep(100 * time.Millisecond)
		queued.UpsertStatus(context.Background(), "o", "r", 1, comments.RenderStatus(comments.Status{State: StateQueued}))
	}()
	<-locked
	h := &GitHubHost{Owner: "o", Name: "r", Number: 1,
		Poster:     &comments.Poster{Client: f, BotLogin: "warden[bot]", Redactor: comments.NewRedactor(), Remember: true},
		StatusLock: func(context.Context) func() { lock.Lock(); return lock.Unlock }}
	ctx := context.Background()
	if _, err := h.PriorOutcomes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Status(ctx, comments.Status{State: StateRunning}); err != nil {
		t.Fatal(err)
	}
	lock.Lock() // the queued update is done
	defer lock.Unlock()
	if len(f.cs) != 1 || f.cs[0].GetBody() != comments.RenderStatus(comments.Status{State: StateRunning}) {
		t.Fatalf("%d comments, want the queued status comment edited to running:\n%v", len(f.cs), f.cs)
	}
}
