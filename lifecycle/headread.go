package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/shurcooL/githubv4"
	"github.com/warden-bot/warden/github/githubapp"
)

// configPath is the repository's Warden configuration, read from the base
// branch.
const configPath = ".github/warden.yml"

// headQuery reads in one GraphQL request what REST needs five calls for:
// the base branch's configuration blob and, on the head commit, the check
// suites (each with its App and its runs) and the commit statuses (the
// newest of each context, with who wrote it).
type headQuery struct {
	Repository *struct {
		Config *gqlObject `graphql:"config: object(expression: $config)"`
		Head   *struct {
			Commit gqlCommit `graphql:"... on Commit"`
		} `graphql:"head: object(oid: $head)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// gqlObject is a Git object; only a blob has text. Text is null for a
// binary blob, and cut when isTruncated.
type gqlObject struct {
	Typename string `graphql:"__typename"`
	Blob     struct {
		Text        *string
		IsTruncated bool
	} `graphql:"... on Blob"`
}

type gqlPage struct{ HasNextPage bool }

type gqlCommit struct {
	CheckSuites struct {
		PageInfo gqlPage
		Nodes    []gqlSuite
	} `graphql:"checkSuites(first: 100)"`
	Status *struct { // null when the commit has no status at all
		Contexts []gqlStatus
	}
}

// gqlSuite is a check suite with its runs. No database ids are read: a
// run's suite is where it hangs, and GraphQL's Int is 32 bits.
type gqlSuite struct {
	Status     string
	Conclusion *string
	CreatedAt  githubv4.DateTime
	App        *struct{ Slug, Name string }
	CheckRuns  struct {
		PageInfo gqlPage
		Nodes    []struct {
			Name, Status string
			Conclusion   *string
		}
	} `graphql:"checkRuns(first: 100, filterBy: {checkType: LATEST})"`
}

type gqlStatus struct {
	Context, State string
	Description    *string
	Creator        *githubapp.Actor
}

// baseConfig is the base branch's configuration as the query saw it.
type baseConfig struct {
	text  []byte
	found bool // false: no file there, the defaults apply
	ok    bool // false: not a whole text blob here; read it over REST
}

// readHead makes one GraphQL request for x's base configuration and head
// CI; complete is false when a listing has a further page (the caller
// reads the CI over REST then). On an error nothing it read may be used.
func readHead(ctx context.Context, c *github.Client, x *pr) (cfg baseConfig, ci headCI, complete bool, err error) {
	var q headQuery
	vars := map[string]any{
		"owner":  githubv4.String(x.owner),
		"name":   githubv4.String(x.name),
		"config": githubv4.String(x.GetBase().GetRef() + ":" + configPath),
		"head":   githubv4.GitObjectID(x.GetHead().GetSHA()),
	}
	if err := githubapp.GraphQL(c).Query(ctx, &q, vars); err != nil {
		return cfg, ci, false, fmt.Errorf("read %s and the CI of %s: %w", configPath, x.GetHead().GetSHA(), err)
	}
	if q.Repository == nil || q.Repository.Head == nil {
		return cfg, ci, false, fmt.Errorf("read the CI of %s: GraphQL found no such repository or commit", x.GetHead().GetSHA())
	}
	ci, complete = q.Repository.Head.Commit.headCI()
	return q.Repository.Config.config(), ci, complete, nil
}

func (o *gqlObject) config() baseConfig {
	switch {
	case o == nil:
		return baseConfig{ok: true} // a missing file's object is null
	case o.Typename != "Blob" || o.Blob.Text == nil || o.Blob.IsTruncated:
		return baseConfig{} // a directory, a binary or a cut text: REST decides
	}
	return baseConfig{text: []byte(*o.Blob.Text), found: true, ok: true}
}

// headCI converts the query's nodes into the shapes REST's listings give,
// so one judge serves both; complete is false when a page is missing.
func (c gqlCommit) headCI() (headCI, bool) {
	var ci headCI
	complete := !c.CheckSuites.PageInfo.HasNextPage
	for i, s := range c.CheckSuites.Nodes {
		id := int64(i + 1) // ties each run to its suite (headCI.idle)
		app := &github.App{}
		if s.App != nil {
			app = &github.App{Slug: github.String(s.App.Slug), Name: github.String(s.App.Name)}
		}
		ci.suites = append(ci.suites, &github.CheckSuite{ID: github.Int64(id), App: app, Status: lower(&s.Status),
			Conclusion: lower(s.Conclusion), CreatedAt: &github.Timestamp{Time: s.CreatedAt.Time}})
		complete = complete && !s.CheckRuns.PageInfo.HasNextPage
		for _, r := range s.CheckRuns.Nodes {
			ci.runs = append(ci.runs, &github.CheckRun{Name: github.String(r.Name), Status: lower(&r.Status),
				Conclusion: lower(r.Conclusion), App: app, CheckSuite: &github.CheckSuite{ID: github.Int64(id)}})
		}
	}
	if c.Status != nil {
		for _, s := range c.Status.Contexts {
			ci.statuses = append(ci.statuses, &github.RepoStatus{Context: github.String(s.Context), State: lower(&s.State),
				Description: s.Description, Creator: &github.User{Login: github.String(creator(s.Creator))}})
		}
	}
	return ci, complete
}

// creator is who wrote a status, as REST spells it; "" for a deleted
// account, which is not Warden.
func creator(a *githubapp.Actor) string {
	if a == nil {
		return ""
	}
	return a.RESTLogin()
}

// lower is GraphQL's enum (SUCCESS, IN_PROGRESS) as REST's value.
func lower(s *string) *string {
	if s == nil {
		return nil
	}
	return github.String(strings.ToLower(*s))
}
