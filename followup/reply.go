package followup

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// replyInThread answers review comment id in its own thread through
// GitHub's dedicated endpoint, POST /repos/{owner}/{repo}/pulls/{n}/comments/{id}/replies.
// go-github's CreateCommentInReplyTo posts to …/pulls/{n}/comments with
// in_reply_to but without commit_id and path, which GitHub's description
// of that endpoint requires.
func replyInThread(ctx context.Context, c *github.Client, owner, name string, pr int, id int64, body string) error {
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", owner, name, pr, id)
	req, err := c.NewRequest(http.MethodPost, u, map[string]string{"body": body})
	if err != nil {
		return fmt.Errorf("reply request: %w", err)
	}
	if _, err := c.Do(ctx, req, nil); err != nil {
		return fmt.Errorf("reply to review comment %d on %s/%s#%d: %w", id, owner, name, pr, err)
	}
	return nil
}
