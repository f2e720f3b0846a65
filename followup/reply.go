package followup

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/pipeline"
)

// replyIntent is the journal's intent to answer inline comment it in its
// own thread. A comment stored before its commit was kept is answered on
// head, the commit the follow-up pushed (a commit of the PR, which GitHub
// accepts as the reply's commit_id).
func replyIntent(host *pipeline.GitHubHost, p jobs.RunPayload, it Item, head string) effects.Intent {
	commit := it.CommitID
	if commit == "" {
		commit = head
	}
	return effects.ReplyIntent(p.Repo, p.Installation, p.PR, effects.Reply{InReplyTo: it.ID, CommitID: commit,
		Path: it.Path, Body: ReplyText(head), By: host.BotLogin})
}

// reply answers each inline comment in its own thread but those in done
// (GitHub shows the answer already), then ends the in-flight record. The
// feedback is marked answered either way: the commit answered it. The
// thread's reply goes through the journal (effects.AnswerThread), so a
// reply whose POST failed or whose answer was lost stays owed and the
// sweep posts it, once, instead of the thread going unanswered.
func (r *Runner) reply(ctx context.Context, c *github.Client, host *pipeline.GitHubHost, p jobs.RunPayload, items []Item, sha string, done map[int64]bool, log *slog.Logger) {
	for _, it := range items {
		if it.Kind != KindInline || it.ID == 0 {
			continue
		}
		intent := replyIntent(host, p, it, sha)
		if done[it.ID] {
			log.Info("inline thread answered before the kill; not again", "comment", it.ID)
			if host.Effects != nil {
				_ = host.Effects.Confirm(ctx, intent.Key) // an intent the killed try left
			}
		} else if err := effects.AnswerThread(ctx, host.Effects, effects.GitHub{C: c}, intent); err != nil {
			log.Warn("inline thread not answered yet; the effects sweep answers it", "comment", it.ID, "err", err)
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
