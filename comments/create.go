package comments

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-github/v60/github"
)

// createTries bounds the posts of one new comment; createBackoff is the
// first wait between them (then doubled): 0.5 + 1 + 2 s in all.
const createTries = 4

var createBackoff = 500 * time.Millisecond

// create posts a new comment on issue n. A POST that GitHub answered with
// a 5xx, or that got no answer at all, may have been stored anyway
// (GitHub's proxy gives up after 10 s while the backend goes on), so
// before posting again the poster lists the issue and adopts a comment of
// its own with exactly this body: an outcome or status comment must
// neither be lost nor appear twice. A refusal GitHub sends before writing
// (4xx; rate limits are waited out by the transport) is not retried.
func (p *Poster) create(ctx context.Context, owner, repo string, n int, body string) (*github.IssueComment, error) {
	var err error
	for try := 1; try <= createTries; try++ {
		if try > 1 {
			if werr := sleep(ctx, createBackoff<<(try-2)); werr != nil {
				break
			}
			own, lerr := p.list(ctx, owner, repo, n)
			if lerr != nil {
				continue // whether the last post landed is unknown: do not risk a second copy
			}
			for _, c := range own {
				if c.GetBody() == body {
					return c, nil
				}
			}
		}
		var c *github.IssueComment
		var resp *github.Response
		c, resp, err = p.Client.CreateComment(ctx, owner, repo, n, &github.IssueComment{Body: &body})
		if err == nil {
			p.self(c.GetUser())
			return c, nil
		}
		if !unsure(resp) || ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("comment on %s/%s#%d: %w", owner, repo, n, err)
}

// self passes the bot's user id to Self when u, the author GitHub answered
// for a comment this poster wrote, is the bot.
func (p *Poster) self(u *github.User) {
	if p.Self != nil && u.GetID() != 0 && u.GetLogin() == p.BotLogin {
		p.Self(u.GetID())
	}
}

// unsure reports whether a failed post may have been stored: no answer, or
// a server error.
func unsure(resp *github.Response) bool {
	return resp == nil || resp.Response == nil || resp.StatusCode >= 500
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
