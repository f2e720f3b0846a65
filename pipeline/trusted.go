package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/github/githubapp"
)

// Bounds on the comments quoted to the planner: the newest ones count most.
const (
	maxTrustedComments = 20
	maxCommentBytes    = 4 << 10
)

// trustedCommenter is a Host that can list the issue's comments by writers.
// It is optional: `bot run` has no comments.
type trustedCommenter interface {
	TrustedComments(ctx context.Context) ([]agent.Comment, error)
}

// TrustedComments lists the issue's comments by users with write, maintain
// or admin permission, oldest first, with hidden content removed. Warden's
// own comments are left out (their records reach the planner as previous
// attempts), and so is anyone whose permission cannot be read: a comment
// is trusted only when its author is known to be a writer.
func (h *GitHubHost) TrustedComments(ctx context.Context) ([]agent.Comment, error) {
	if h.ownOnly { // the issue's comment count showed none but Warden's: nothing to list
		return nil, nil
	}
	var all []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < 3; page++ {
		cs, resp, err := h.Client.Issues.ListComments(ctx, h.Owner, h.Name, h.Number, opts)
		if err != nil {
			return nil, fmt.Errorf("list comments of %s#%d: %w", h.repo(), h.Number, err)
		}
		all = append(all, cs...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	writer := map[string]bool{}
	var out []agent.Comment
	for _, c := range all {
		login := c.GetUser().GetLogin()
		if login == "" || login == h.BotLogin || strings.EqualFold(c.GetUser().GetType(), "Bot") {
			continue
		}
		ok, seen := writer[login]
		if !seen {
			perm, _, err := h.Client.Repositories.GetPermissionLevel(ctx, h.Owner, h.Name, login)
			ok = err == nil && githubapp.CanWrite(perm.GetPermission())
			writer[login] = ok
		}
		if !ok {
			continue
		}
		body := agent.Visible(c.GetBody())
		if len(body) > maxCommentBytes {
			body = strings.ToValidUTF8(body[:maxCommentBytes], "") + "\n[… cut …]"
		}
		if strings.TrimSpace(body) == "" {
			continue
		}
		out = append(out, agent.Comment{Author: login, Date: c.GetCreatedAt().Format("2006-01-02"), Body: body})
	}
	if len(out) > maxTrustedComments {
		out = out[len(out)-maxTrustedComments:]
	}
	return out, nil
}
