package pipeline

import (
	"context"

	"github.com/warden-bot/warden/github/githubapp"
)

// writerChecker is a Host that can tell whether a user may write to the
// repository. It is optional: `bot run` has no users.
type writerChecker interface {
	Writes(ctx context.Context, login string) (bool, error)
}

// Writes reports whether login has write, maintain or admin permission.
func (h *GitHubHost) Writes(ctx context.Context, login string) (bool, error) {
	if login == h.BotLogin {
		return true, nil
	}
	perm, _, err := h.Client.Repositories.GetPermissionLevel(ctx, h.Owner, h.Name, login)
	if err != nil {
		return false, err
	}
	return githubapp.CanWrite(perm.GetPermission()), nil
}

// vettedText is the issue text the model may read: what a writer saw. The
// task carries the text as of the writer's request (the labelling, or a
// /warden command); the issue as re-read now may have been edited since.
// Only the issue's author and writers can edit it, so the current text is
// taken when it is unchanged or its author writes (then every edit is a
// writer's); otherwise the text the writer saw. A task without text (a
// follow-up, a sub-issue Warden opened) takes the current text.
func (a *attempt) vettedText(ctx context.Context, info IssueInfo) (title, body string) {
	if a.t.Title == "" && a.t.Body == "" || a.t.Title == info.Title && a.t.Body == info.Body {
		return info.Title, info.Body
	}
	wc, ok := a.host.(writerChecker)
	if !ok {
		return info.Title, info.Body
	}
	if writes, err := wc.Writes(ctx, info.Author); err == nil && writes {
		return info.Title, info.Body
	} else if err != nil {
		a.log.Warn("issue author's permission not read; using the text the writer saw", "author", info.Author, "err", err)
	} else {
		a.log.Warn("issue edited by its author, who cannot write, after a writer's request; using the text the writer saw",
			"author", info.Author, "audit", true)
	}
	return a.t.Title, a.t.Body
}
