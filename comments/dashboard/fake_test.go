package dashboard

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/harness"
)

const bot = "warden-test[bot]"

// fakeIssues is GitHub's issues API over a map, recording every call as
// "METHOD #n" the way Prow's fakes do.
type fakeIssues struct {
	mu     sync.Mutex
	issues map[int]*github.Issue
	next   int
	calls  []string
}

func newFakeIssues() *fakeIssues { return &fakeIssues{issues: map[int]*github.Issue{}, next: 1} }

func (f *fakeIssues) add(author, title, body string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.next
	f.next++
	f.issues[n] = &github.Issue{Number: github.Int(n), Title: github.String(title), Body: github.String(body),
		State: github.String("open"), User: &github.User{Login: github.String(author)}}
	return n
}

func (f *fakeIssues) ListByRepo(_ context.Context, _, _ string, o *github.IssueListByRepoOptions) ([]*github.Issue, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "LIST")
	var out []*github.Issue
	for _, is := range f.issues {
		if is.GetState() == o.State && (o.Creator == "" || is.GetUser().GetLogin() == o.Creator) {
			c := *is
			out = append(out, &c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetNumber() < out[j].GetNumber() })
	page, per := max(o.Page, 1), o.PerPage
	from, to := min((page-1)*per, len(out)), min(page*per, len(out))
	resp := &github.Response{Response: &http.Response{StatusCode: 200}}
	if to < len(out) {
		resp.NextPage = page + 1
	}
	return out[from:to], resp, nil
}

func (f *fakeIssues) Create(_ context.Context, _, _ string, r *github.IssueRequest) (*github.Issue, *github.Response, error) {
	n := f.add(bot, r.GetTitle(), r.GetBody())
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf("CREATE #%d", n))
	c := *f.issues[n]
	return &c, &github.Response{Response: &http.Response{StatusCode: 201}}, nil
}

func (f *fakeIssues) Edit(_ context.Context, _, _ string, n int, r *github.IssueRequest) (*github.Issue, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf("EDIT #%d", n))
	is, ok := f.issues[n]
	if !ok {
		resp := &github.Response{Response: &http.Response{StatusCode: 404}}
		return nil, resp, &github.ErrorResponse{Response: resp.Response, Message: "Not Found"}
	}
	if r.Body != nil {
		is.Body = r.Body
	}
	if r.Title != nil {
		is.Title = r.Title
	}
	if r.State != nil {
		is.State = r.State
	}
	c := *is
	return &c, &github.Response{Response: &http.Response{StatusCode: 200}}, nil
}

func (f *fakeIssues) Get(_ context.Context, _, _ string, n int) (*github.Issue, *github.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf("GET #%d", n))
	c := *f.issues[n]
	return &c, &github.Response{Response: &http.Response{StatusCode: 200}}, nil
}

// open lists the open dashboards Warden opened.
func (f *fakeIssues) open() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int
	for n, is := range f.issues {
		if is.GetState() == "open" && is.GetUser().GetLogin() == bot && IsDashboard(is.GetTitle(), is.GetBody()) {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

func (f *fakeIssues) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

type botApp struct{}

func (botApp) Client(int64) *github.Client              { return nil }
func (botApp) BotLogin(context.Context) (string, error) { return bot, nil }

// testBoard is a Board on a leased real Redis database and its queue.
func testBoard(t *testing.T) (*Board, redis.UniversalClient) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	be, err := jobs.Open(fmt.Sprintf("redis://%s/%d", harness.RedisAddr(t), harness.RedisDB(t)), log)
	if err != nil {
		t.Fatal(err)
	}
	q := jobs.NewQueue(be)
	t.Cleanup(func() { q.Close(); be.Close() })
	rdb := be.RDB
	b := &Board{RDB: rdb, App: botApp{}, Queue: q, Tasks: q.Inspector(), History: jobs.NewHistory(rdb), Memo: jobs.NewStatusMemo(rdb),
		Locks: jobs.NewLocks(rdb, jobs.RunLockTTL), Prefix: "warden", Log: log}
	return b, rdb
}
