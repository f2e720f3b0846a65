package followup

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

// A follow-up killed after its push is finished by its recovery, from what
// the in-flight record kept: the items, the commit, the follow-up's number.
// Redis cannot say whether a write to GitHub that was under way at the kill
// landed, so the recovery reads GitHub back first: the outcome comment and
// each thread's reply are posted only where GitHub does not show them yet.
// Without that, a kill after the push lost the outcome comment (the only
// answer a review body or a `/warden fix` gets), and a kill between a reply
// and its record answered the thread twice.

// noteMark opens the note of follow-up n's outcome comment; it is unique
// on the PR, so it finds the comment again.
func noteMark(n int64) string { return fmt.Sprintf("Follow-up %d on this pull request", n) }

func note(n int64, items []Item) string {
	return fmt.Sprintf("%s answered %s.", noteMark(n), Summary(items))
}

// recoverPushed finishes the follow-up whose killed try pushed tk.Pushed.
// A failed read of GitHub keeps the record for the task's retry rather
// than answer twice.
func (r *Runner) recoverPushed(ctx context.Context, host *pipeline.GitHubHost, p jobs.RunPayload, tk Taken, log *slog.Logger) pipeline.Result {
	log.Info("follow-up recovered after its push; answering its feedback", "pushed", tk.Pushed)
	items := dropEmptyReviews(slices.Clone(tk.Items))
	rec := outcome.Record{Outcome: outcome.Completed, PR: p.PR, Mode: p.Mode,
		Summary: fmt.Sprintf("Follow-up %d pushed %s.", tk.Count, short(tk.Pushed))}
	fh := &pipeline.FollowupHost{GitHubHost: host, PR: p.PR, Note: note(tk.Count, items)}
	if err := fh.OutcomeOnce(ctx, rec, noteMark(tk.Count)); err != nil {
		return transient(fmt.Sprintf("outcome of recovered follow-up on #%d: %v", p.PR, err))
	}
	// The sweep's re-read of a thread (effects.RedriveReply), for all of them at once.
	done, err := effects.GitHub{C: host.Client}.Replies(ctx, host.Owner, host.Name, p.PR, host.BotLogin, ReplyText(tk.Pushed))
	if err != nil {
		return transient(err.Error())
	}
	r.reply(ctx, host.Client, host, p, tk.Items, tk.Pushed, done, log)
	r.next(ctx, p, log)
	return quiet("follow-up recovered after its push: replies posted")
}

func short(sha string) string { return sha[:min(7, len(sha))] }
