package githubapp

import (
	"net/url"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/shurcooL/githubv4"
)

// GraphQL is GitHub's GraphQL client beside a REST client: the same
// installation token, at api.github.com/graphql or, on Enterprise Server,
// HOST/api/graphql beside HOST/api/v3.
func GraphQL(c *github.Client) *githubv4.Client {
	return githubv4.NewEnterpriseClient(graphQLURL(c.BaseURL), c.Client())
}

func graphQLURL(rest *url.URL) string {
	u := *rest
	p := strings.TrimSuffix(u.Path, "/")
	if strings.HasSuffix(p, "/api/v3") {
		u.Path = strings.TrimSuffix(p, "/v3") + "/graphql"
	} else {
		u.Path = p + "/graphql"
	}
	return u.String()
}

// Actor is a GraphQL actor (an author, a creator) as a query reads it.
type Actor struct {
	Typename string `graphql:"__typename"`
	Login    string
}

// RESTLogin is the login as REST spells it, which is how Warden knows its
// own bot and looks up permissions: GraphQL leaves out the "[bot]" of an
// App's bot.
func (a Actor) RESTLogin() string {
	if a.Typename == "Bot" && !strings.HasSuffix(a.Login, "[bot]") {
		return a.Login + "[bot]"
	}
	return a.Login
}
