package effects

import (
	"context"
	"fmt"
	"strings"
)

// KindReviewers is the journal kind of a review request.
const KindReviewers = "reviewers"

// ReviewIntent is the intent to ask users and teams to review PR n of repo
// at head sha: its key makes the request once per head, across a
// redelivered or retried task.
func ReviewIntent(repo string, installation int64, n int, sha string, users, teams []string) Intent {
	return Intent{Key: ReviewKey(repo, n, sha), Kind: KindReviewers, Repo: repo,
		Installation: installation, PR: n, SHA: sha, Users: users, Teams: teams}
}

// ReviewKey is the idempotency key of the review request of PR n at head sha.
func ReviewKey(repo string, n int, sha string) string {
	return fmt.Sprintf("%s:%s#%d:%s", KindReviewers, repo, n, sha)
}

// RequestReview makes the review request of it through the journal (nil:
// none): nothing is asked when a request for the same head was confirmed
// already (already true), the intent is recorded before the call, and
// confirmed once GitHub answered it, refusals included (asking again would
// be refused again). An error leaves the intent for the sweep.
func RequestReview(ctx context.Context, j *Journal, g GitHub, it Intent) (asked Asked, already bool, err error) {
	if j != nil {
		if done, err := j.Done(ctx, it.Key); err != nil || done {
			return Asked{}, done, err
		}
		if err := j.Begin(ctx, it); err != nil {
			return Asked{}, false, err
		}
	}
	owner, name, _ := strings.Cut(it.Repo, "/")
	if asked, err = g.RequestReviewers(ctx, owner, name, it.PR, it.Users, it.Teams); err != nil {
		return asked, false, err
	}
	if j != nil {
		if err := j.Confirm(ctx, it.Key); err != nil {
			return asked, false, err
		}
	}
	return asked, false, nil
}
