package comments

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

// failing answers the first creates and listings with scripted faults (a
// nil listing fault is a listing that works);
// a fault with stored set keeps the comment it refuses, as GitHub may.
type failing struct {
	fakeIssues
	creates []fault
	lists   []error
	posts   int
}

type fault struct {
	status int
	stored bool
}

func (f *failing) CreateComment(ctx context.Context, o, r string, n int, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	f.posts++
	if len(f.creates) == 0 {
		return f.fakeIssues.CreateComment(ctx, o, r, n, c)
	}
	ft := f.creates[0]
	f.creates = f.creates[1:]
	if ft.stored {
		f.fakeIssues.CreateComment(ctx, o, r, n, c)
	}
	resp := &github.Response{Response: &http.Response{StatusCode: ft.status}}
	return nil, resp, &github.ErrorResponse{Response: resp.Response, Message: "Server Error"}
}

func (f *failing) ListComments(ctx context.Context, o, r string, n int, opts *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error) {
	if len(f.lists) > 0 {
		err := f.lists[0]
		f.lists = f.lists[1:]
		if err != nil {
			return nil, nil, err
		}
	}
	return f.fakeIssues.ListComments(ctx, o, r, n, opts)
}

// A comment whose POST failed is posted again only when a fresh listing
// shows GitHub did not store it; a refusal is not retried.
func TestCreateLooksBeforePostingAgain(t *testing.T) {
	createBackoff = time.Millisecond
	defer func() { createBackoff = 500 * time.Millisecond }()
	cases := []struct {
		name     string
		creates  []fault
		lists    []error
		posts    int
		comments int
		failed   bool
	}{
		{"lost 502", []fault{{502, false}}, nil, 2, 1, false},
		{"stored 502", []fault{{502, true}}, nil, 1, 1, false},
		{"burst, then stored", []fault{{500, false}, {502, false}, {502, true}}, nil, 3, 1, false},
		{"listing down once", []fault{{502, false}}, []error{nil, errors.New("connection reset by peer")}, 2, 1, false},
		{"refused", []fault{{422, false}}, nil, 1, 0, true},
		{"down throughout", []fault{{502, false}, {502, false}, {502, false}, {502, false}}, nil, 4, 0, true},
	}
	for _, tc := range cases {
		f := &failing{creates: tc.creates, lists: tc.lists}
		p := &Poster{Client: f, BotLogin: "warden[bot]", Redactor: NewRedactor(), Remember: true}
		id, err := p.UpsertStatus(context.Background(), "o", "r", 1, RenderStatus(Status{State: "running"}))
		if f.posts != tc.posts || len(f.comments) != tc.comments || (err != nil) != tc.failed {
			t.Errorf("%s: %d posts, %d comments, err %v; want %d posts, %d comments, failed %v", tc.name, f.posts, len(f.comments), err, tc.posts, tc.comments, tc.failed)
			continue
		}
		if !tc.failed && id != f.comments[0].GetID() {
			t.Errorf("%s: id %d, want the stored comment's %d", tc.name, id, f.comments[0].GetID())
		}
		if tc.failed && !strings.Contains(err.Error(), "comment on o/r#1") {
			t.Errorf("%s: error %q does not say what failed", tc.name, err)
		}
	}
}

// The adopted comment is remembered: the next update edits it.
func TestCreateAdoptsTheStoredComment(t *testing.T) {
	createBackoff = time.Millisecond
	defer func() { createBackoff = 500 * time.Millisecond }()
	f := &failing{creates: []fault{{502, true}}}
	p := &Poster{Client: f, BotLogin: "warden[bot]", Redactor: NewRedactor(), Remember: true}
	ctx := context.Background()
	if _, err := p.PriorOutcomes(ctx, "o", "r", 1); err != nil {
		t.Fatal(err)
	}
	p.UpsertStatus(ctx, "o", "r", 1, RenderStatus(Status{State: "running"}))
	p.UpsertStatus(ctx, "o", "r", 1, RenderStatus(Status{State: "completed"}))
	if len(f.comments) != 1 || !strings.Contains(f.comments[0].GetBody(), "Completed") {
		t.Fatalf("%d comments; last body:\n%s", len(f.comments), f.comments[len(f.comments)-1].GetBody())
	}
}

// The answer to a comment the poster wrote names the bot's user id: Self
// hears it (githubapp learns it there instead of a GET /users/<bot>); an
// answer naming another author is not the bot's.
func TestCreateTellsTheBotsUserID(t *testing.T) {
	var got []int64
	f := &fakeIssues{}
	p := &Poster{Client: f, BotLogin: "warden[bot]", Redactor: NewRedactor(), Self: func(id int64) { got = append(got, id) }}
	if _, err := p.UpsertStatus(context.Background(), "o", "r", 1, RenderStatus(Status{State: "running"})); err != nil {
		t.Fatal(err)
	}
	p.BotLogin = "other[bot]"
	if err := p.Reply(context.Background(), "o", "r", 1, "hello"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != 4242 {
		t.Fatalf("Self heard %v, want [4242]", got)
	}
}
