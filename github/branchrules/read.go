package branchrules

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"
)

// DefaultTTL bounds how long a repository's rules are trusted without a
// repository_ruleset or branch_protection_rule event saying they changed:
// a worker that did not see the event (another replica) catches up by then.
const DefaultTTL = 2 * time.Minute

// Reader reads and caches rules per repository and branch.
type Reader struct {
	TTL time.Duration
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	rules Rules
	at    time.Time
}

// Invalidate forgets everything cached for repo ("owner/name").
func (r *Reader) Invalidate(repo string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.cache {
		if repoOf(k) == repo {
			delete(r.cache, k)
		}
	}
}

// Refused remembers that repo's settings refused merge method m, for
// every cached branch of repo, until the entry expires: the next PR there
// is not refused the same way first.
func (r *Reader) Refused(repo, m string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, e := range r.cache {
		if repoOf(k) == repo {
			e.rules.RepoMethods = Without(e.rules.RepoMethods, m)
			r.cache[k] = e
		}
	}
}

func repoOf(key string) string {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '@' {
			return key[:i]
		}
	}
	return key
}

func (r *Reader) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Get returns the rules of owner/name's branch, from the cache while fresh.
func (r *Reader) Get(ctx context.Context, c *github.Client, owner, name, branch string) (Rules, error) {
	key := owner + "/" + name + "@" + branch
	ttl := r.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	r.mu.Lock()
	if e, ok := r.cache[key]; ok && r.now().Sub(e.at) < ttl {
		r.mu.Unlock()
		return e.rules, nil
	}
	r.mu.Unlock()
	rules, err := Read(ctx, c, owner, name, branch)
	if err != nil {
		return Rules{}, err
	}
	r.mu.Lock()
	if r.cache == nil {
		r.cache = map[string]cached{}
	}
	r.cache[key] = cached{rules: rules, at: r.now()}
	r.mu.Unlock()
	return rules, nil
}

// Read asks GitHub, uncached: the rules that apply to branch, and its
// classic protection where the App may read it. The merge methods the
// repository's settings allow are not read up front (a GET of the
// repository for three flags, on every read): they are learned from the
// merge call's refusal, which names the method (Refused, and
// lifecycle's merge). Anything else that fails is an error: deciding
// without the rules would merge past them (fail closed).
func Read(ctx context.Context, c *github.Client, owner, name, branch string) (Rules, error) {
	var r Rules
	if err := readRulesets(ctx, c, owner, name, branch, &r); err != nil {
		return r, err
	}
	if err := readProtection(ctx, c, owner, name, branch, &r); err != nil {
		return r, err
	}
	return r, nil
}

// readRulesets reads GET /repos/{o}/{r}/rules/branches/{branch}, every page.
// A 404 means no rulesets here (GitHub Enterprise Server before rulesets).
func readRulesets(ctx context.Context, c *github.Client, owner, name, branch string, r *Rules) error {
	u := fmt.Sprintf("repos/%s/%s/rules/branches/%s?per_page=100", owner, name, url.PathEscape(branch))
	for page := 1; page <= 10; page++ {
		req, err := c.NewRequest(http.MethodGet, fmt.Sprintf("%s&page=%d", u, page), nil)
		if err != nil {
			return fmt.Errorf("rules request: %w", err)
		}
		var got []rule
		resp, err := c.Do(ctx, req, &got)
		if status(err) == http.StatusNotFound {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read rules of %s/%s@%s: %w", owner, name, branch, err)
		}
		for _, x := range got {
			r.apply(x)
		}
		if resp.NextPage == 0 {
			return nil
		}
	}
	return nil
}

// readProtection folds in classic branch protection. It needs the
// administration permission to read; without it (403) or without protection
// (404), GitHub's refusal of the merge is what tells Warden, and is said.
func readProtection(ctx context.Context, c *github.Client, owner, name, branch string, r *Rules) error {
	p, _, err := c.Repositories.GetBranchProtection(ctx, owner, name, branch)
	if s := status(err); s == http.StatusNotFound || s == http.StatusForbidden || errors.Is(err, github.ErrBranchNotProtected) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read protection of %s/%s@%s: %w", owner, name, branch, err)
	}
	if sc := p.GetRequiredStatusChecks(); sc != nil {
		if sc.Contexts != nil {
			for _, ctx := range *sc.Contexts {
				r.addCheck(ctx)
			}
		}
		if sc.Checks != nil {
			for _, ch := range *sc.Checks {
				r.addCheck(ch.Context)
			}
		}
	}
	if rv := p.GetRequiredPullRequestReviews(); rv != nil {
		r.Approvals = max(r.Approvals, rv.RequiredApprovingReviewCount)
		r.CodeOwners = r.CodeOwners || rv.RequireCodeOwnerReviews
		r.DismissStale = r.DismissStale || rv.DismissStaleReviews
		r.LastPushApproval = r.LastPushApproval || rv.RequireLastPushApproval
	}
	r.Linear = r.Linear || p.GetRequireLinearHistory().Enabled
	r.Signatures = r.Signatures || p.GetRequiredSignatures().GetEnabled()
	r.ThreadResolution = r.ThreadResolution || p.GetRequiredConversationResolution().Enabled
	return nil
}

func status(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}
