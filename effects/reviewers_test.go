package effects_test

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/harness"
)

// pull is a fake repository with one open PR, its number and the client to it.
func pull(t *testing.T) (*fakegithub.Server, effects.GitHub, int) {
	t.Helper()
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	_, cloneURL := gitfixture.NewRepo(t, map[string]string{"a.go": "package a\n"})
	gh.AddRepo("acme", "calc", cloneURL, "main")
	c := github.NewClient(nil).WithAuthToken(gh.InstallationToken(1))
	c.BaseURL, _ = url.Parse(gh.URL() + "/")
	pr, _, err := c.PullRequests.Create(context.Background(), "acme", "calc", &github.NewPullRequest{
		Title: github.String("t"), Head: github.String("main"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	gh.SetPermission("acme/calc", "alice", "write")
	gh.AddTeam("acme/calc", "core")
	return gh, effects.GitHub{C: c}, pr.GetNumber()
}

// Everyone askable is asked in one request, and GitHub's answer shows them.
func TestRequestReviewersAsksInOneCall(t *testing.T) {
	gh, g, n := pull(t)
	asked, err := g.RequestReviewers(context.Background(), "acme", "calc", n, []string{"alice"}, []string{"core"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked.Users, []string{"alice"}) || !slices.Equal(asked.Teams, []string{"core"}) || asked.Refused != nil {
		t.Fatalf("asked %+v", asked)
	}
	if _, _, calls := gh.ReviewRequests("acme/calc", n); calls != 1 {
		t.Fatalf("%d requests answered, want 1", calls)
	}
}

// GitHub refuses the whole request (422) for one reviewer who is not a
// collaborator, without naming them: the others are still asked, and the
// refused one is dropped and named, not an error.
func TestRequestReviewersDropsWhomGitHubRefuses(t *testing.T) {
	gh, g, n := pull(t)
	asked, err := g.RequestReviewers(context.Background(), "acme", "calc", n, []string{"mallory", "alice"}, []string{"core", "ghosts"})
	if err != nil {
		t.Fatalf("a refused reviewer failed the request: %v", err)
	}
	if !slices.Equal(asked.Users, []string{"alice"}) || !slices.Equal(asked.Teams, []string{"core"}) ||
		!slices.Equal(asked.Refused, []string{"@mallory", "team ghosts"}) {
		t.Fatalf("asked %+v", asked)
	}
	users, teams, _ := gh.ReviewRequests("acme/calc", n)
	if !slices.Equal(users, []string{"alice"}) || !slices.Equal(teams, []string{"core"}) {
		t.Fatalf("on GitHub: users %v teams %v", users, teams)
	}
}

// Once per head: a redelivered or retried release asks nobody again.
func TestRequestReviewOncePerHead(t *testing.T) {
	gh, g, n := pull(t)
	rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: harness.RedisDB(t)})
	t.Cleanup(func() { rdb.Close() })
	j, ctx := effects.New(rdb), context.Background()
	it := effects.ReviewIntent("acme/calc", 1, n, "sha-"+t.Name(), []string{"alice"}, nil)
	t.Cleanup(func() { rdb.Del(ctx, "warden:effects:done:"+it.Key) })
	for i := range 2 {
		asked, already, err := effects.RequestReview(ctx, j, g, it)
		if err != nil || already != (i == 1) || (i == 0 && !slices.Equal(asked.Users, []string{"alice"})) {
			t.Fatalf("request %d: asked %+v already %v err %v", i, asked, already, err)
		}
	}
	if _, _, calls := gh.ReviewRequests("acme/calc", n); calls != 1 {
		t.Fatalf("%d review requests for one head, want 1", calls)
	}
}
