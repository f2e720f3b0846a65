package followup

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/pipeline"
)

// replyInThread answers an inline comment in its own thread through the
// review-comments endpoint, POST /repos/{owner}/{repo}/pulls/{n}/comments
// with in_reply_to and the original comment's commit_id and path, as
// GitHub's description requires: the dedicated …/comments/{id}/replies is
// not available to GitHub Apps (enabledForGitHubApps: false). A comment
// stored before its commit was kept is answered on head, the commit the
// follow-up pushed (a commit of the PR, which GitHub accepts).
func replyInThread(ctx context.Context, c *github.Client, owner, name string, pr int, it Item, head, body string) error {
	commit := it.CommitID
	if commit == "" {
		commit = head
	}
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments", owner, name, pr)
	req, err := c.NewRequest(http.MethodPost, u, map[string]any{"body": body, "in_reply_to": it.ID, "commit_id": commit, "path": it.Path})
	if err != nil {
		return fmt.Errorf("reply request: %w", err)
	}
	if _, err := c.Do(ctx, req, nil); err != nil {
		return fmt.Errorf("reply to review comment %d on %s/%s#%d: %w", it.ID, owner, name, pr, err)
	}
	return nil
}

// reply answers each inline comment in its own thread but those in done
// (GitHub shows the answer already), marking each one answered right after
// its reply, then ends the in-flight record.
func (r *Runner) reply(ctx context.Context, c *github.Client, host *pipeline.GitHubHost, p jobs.RunPayload, items []Item, sha string, done map[int64]bool, log *slog.Logger) {
	for _, it := range items {
		if it.Kind != KindInline || it.ID == 0 {
			continue
		}
		if done[it.ID] {
			log.Info("inline thread answered before the kill; not again", "comment", it.ID)
		} else if err := replyInThread(ctx, c, host.Owner, host.Name, p.PR, it, sha, ReplyText(sha)); err != nil {
			log.Warn("inline thread not answered", "comment", it.ID, "err", err)
		}
		if err := r.Store.Answered(ctx, p.Repo, p.PR, it); err != nil {
			log.Warn("answered comment not marked", "comment", it.ID, "err", err)
		}
	}
	if err := r.Store.Finish(ctx, p.Repo, p.PR, items); err != nil {
		log.Error("answered feedback not marked", "err", err)
	}
}

// ReplyText is Warden's answer in an inline thread it addressed.
func ReplyText(sha string) string {
	return fmt.Sprintf("Addressed in %s.", short(sha))
}
