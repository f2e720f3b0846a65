package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/redis/go-redis/v9"
)

// issuesAPI is the part of GitHub's issues API the dashboard calls
// (github.IssuesService).
type issuesAPI interface {
	ListByRepo(ctx context.Context, owner, repo string, opts *github.IssueListByRepoOptions) ([]*github.Issue, *github.Response, error)
	Create(ctx context.Context, owner, repo string, req *github.IssueRequest) (*github.Issue, *github.Response, error)
	Edit(ctx context.Context, owner, repo string, n int, req *github.IssueRequest) (*github.Issue, *github.Response, error)
	Get(ctx context.Context, owner, repo string, n int) (*github.Issue, *github.Response, error)
}

func memoKey(repo string) string { return "warden:dashboard:issue:" + repo }

// lockWait bounds waiting for another worker's write of the same dashboard.
const lockWait = 30 * time.Second

func sum(body string) string {
	h := sha256.Sum256([]byte(body))
	return hex.EncodeToString(h[:12])
}

// write puts body on the repository's dashboard issue, under the
// repository's dashboard lock: an edit of the issue Warden remembers, else
// of the one found by author and marker, else a new one. A body that is
// the one last written is not sent again unless rewrite (someone else
// edited the issue).
func (b *Board) write(ctx context.Context, api issuesAPI, repo, body string, rewrite bool) error {
	lk, err := b.Locks.Wait(ctx, "dashboard:"+repo, lockWait)
	if err != nil {
		return fmt.Errorf("dashboard lock of %s: %w", repo, err)
	}
	defer lk.Release(context.WithoutCancel(ctx))
	owner, name, _ := strings.Cut(repo, "/")
	memo, err := b.RDB.HGetAll(ctx, memoKey(repo)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read dashboard memo of %s: %w", repo, err)
	}
	if n, _ := strconv.Atoi(memo["number"]); n > 0 {
		if memo["sum"] == sum(body) && !rewrite {
			return nil
		}
		_, resp, err := api.Edit(ctx, owner, name, n, request(body))
		if err == nil {
			return b.remember(ctx, repo, n, body)
		}
		if !gone(resp) {
			return fmt.Errorf("edit dashboard %s#%d: %w", repo, n, err)
		}
		b.Log.Warn("dashboard issue gone; looking for another", "repo", repo, "issue", n)
	}
	n, err := b.findOrCreate(ctx, api, owner, name, body)
	if err != nil {
		return err
	}
	return b.remember(ctx, repo, n, body)
}

func gone(resp *github.Response) bool {
	return resp != nil && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone)
}

// request keeps the issue open, titled and with body: a dashboard someone
// closed or renamed comes back with the next change.
func request(body string) *github.IssueRequest {
	return &github.IssueRequest{Title: github.String(Title), Body: github.String(body), State: github.String("open")}
}

func (b *Board) remember(ctx context.Context, repo string, n int, body string) error {
	if err := b.RDB.HSet(ctx, memoKey(repo), "number", n, "sum", sum(body)).Err(); err != nil {
		return fmt.Errorf("remember dashboard %s#%d: %w", repo, n, err)
	}
	return nil
}

// findOrCreate finds the dashboard among the repository's open issues that
// Warden opened (by author, then marker: anyone can paste a marker) and
// writes body on it, or opens it. Of two, the oldest is kept and the other
// closed.
func (b *Board) findOrCreate(ctx context.Context, api issuesAPI, owner, name, body string) (int, error) {
	bot, err := b.App.BotLogin(ctx)
	if err != nil {
		return 0, fmt.Errorf("dashboard of %s/%s: %w", owner, name, err)
	}
	found, err := find(ctx, api, owner, name, bot)
	if err != nil {
		return 0, err
	}
	if len(found) == 0 {
		is, _, err := api.Create(ctx, owner, name, &github.IssueRequest{Title: github.String(Title), Body: github.String(body)})
		if err != nil {
			return 0, fmt.Errorf("create dashboard of %s/%s: %w", owner, name, err)
		}
		b.Log.Info("dashboard issue created", "repo", owner+"/"+name, "issue", is.GetNumber())
		return is.GetNumber(), nil
	}
	keep := found[0]
	for _, dup := range found[1:] {
		if _, _, err := api.Edit(ctx, owner, name, dup.GetNumber(), &github.IssueRequest{State: github.String("closed")}); err != nil {
			return 0, fmt.Errorf("close duplicate dashboard %s/%s#%d: %w", owner, name, dup.GetNumber(), err)
		}
		b.Log.Warn("duplicate dashboard issue closed", "repo", owner+"/"+name, "issue", dup.GetNumber(), "kept", keep.GetNumber())
	}
	if keep.GetBody() != body || keep.GetTitle() != Title {
		if _, _, err := api.Edit(ctx, owner, name, keep.GetNumber(), request(body)); err != nil {
			return 0, fmt.Errorf("edit dashboard %s/%s#%d: %w", owner, name, keep.GetNumber(), err)
		}
	}
	return keep.GetNumber(), nil
}

// maxPages bounds the listing of Warden's open issues (100 a page).
const maxPages = 20

// find lists the repository's open issues opened by bot that carry the
// dashboard's title and marker, oldest first.
func find(ctx context.Context, api issuesAPI, owner, name, bot string) ([]*github.Issue, error) {
	opts := &github.IssueListByRepoOptions{Creator: bot, State: "open", Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: 100}}
	var out []*github.Issue
	for range maxPages {
		page, resp, err := api.ListByRepo(ctx, owner, name, opts)
		if err != nil {
			return nil, fmt.Errorf("list Warden's issues in %s/%s: %w", owner, name, err)
		}
		for _, is := range page {
			if !is.IsPullRequest() && is.GetUser().GetLogin() == bot && IsDashboard(is.GetTitle(), is.GetBody()) {
				out = append(out, is)
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	slices.SortFunc(out, func(a, b *github.Issue) int { return a.GetNumber() - b.GetNumber() })
	return out, nil
}
