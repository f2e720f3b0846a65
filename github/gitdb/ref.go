package gitdb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
)

// ErrLease is a ref that is no longer where the lease expected it: someone
// else pushed, and nothing of theirs is overwritten.
var ErrLease = errors.New("the branch is not at the expected head")

// moveRef points the target ref at sha with the semantics of the git push
// it replaces: without Expect, created or forced (git push --force); with
// it, only while the ref is still at Expect, and as a fast-forward, so a
// push that lands between the read and the update is refused by GitHub
// too (--force-with-lease).
func (c *counter) moveRef(ctx context.Context, sha string) error {
	if c.to.Expect == "" {
		return c.force(ctx, sha)
	}
	c.n++
	cur, _, err := c.api.GetRef(ctx, c.to.Owner, c.to.Repo, strings.TrimPrefix(c.to.Ref, "refs/"))
	if err != nil {
		return fmt.Errorf("read %s of %s/%s for the lease: %w", c.to.Ref, c.to.Owner, c.to.Repo, err)
	}
	if got := cur.GetObject().GetSHA(); got != c.to.Expect {
		return fmt.Errorf("%s is at %s, not %s: %w", c.to.Ref, got, c.to.Expect, ErrLease)
	}
	return c.update(ctx, sha, false)
}

// force creates the ref, or forces it when it exists.
func (c *counter) force(ctx context.Context, sha string) error {
	c.n++
	got, _, err := c.api.CreateRef(ctx, c.to.Owner, c.to.Repo, &github.Reference{Ref: github.String(c.to.Ref), Object: &github.GitObject{SHA: github.String(sha)}})
	if err == nil {
		return c.check(got, sha)
	}
	if !exists(err) {
		return fmt.Errorf("create %s on %s/%s: %w", c.to.Ref, c.to.Owner, c.to.Repo, err)
	}
	return c.update(ctx, sha, true)
}

func (c *counter) update(ctx context.Context, sha string, force bool) error {
	c.n++
	got, _, err := c.api.UpdateRef(ctx, c.to.Owner, c.to.Repo, &github.Reference{Ref: github.String(c.to.Ref), Object: &github.GitObject{SHA: github.String(sha)}}, force)
	if err != nil {
		if !force && status(err) == http.StatusUnprocessableEntity {
			return fmt.Errorf("update %s on %s/%s: %w: %w", c.to.Ref, c.to.Owner, c.to.Repo, ErrLease, err)
		}
		return fmt.Errorf("update %s on %s/%s: %w", c.to.Ref, c.to.Owner, c.to.Repo, err)
	}
	return c.check(got, sha)
}

// check reads the ref GitHub answered back: it must be the new commit.
func (c *counter) check(got *github.Reference, sha string) error {
	if s := got.GetObject().GetSHA(); s != sha {
		return fmt.Errorf("%s of %s/%s is at %q after the update, not %s", c.to.Ref, c.to.Owner, c.to.Repo, s, sha)
	}
	return nil
}

// exists is GitHub's 422 for creating a ref that is there already.
func exists(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && status(err) == http.StatusUnprocessableEntity && strings.Contains(er.Message, "Reference already exists")
}

func status(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}
