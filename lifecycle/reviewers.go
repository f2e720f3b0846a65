package lifecycle

import (
	"context"
	"log/slog"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/github/branchrules"
)

// askReview makes the review request the run proposed for a maintenance
// PR's head (the code owners of its change, else the labeller) once the
// base branch's rules, read for the merge, require a review that is not
// there yet; once per head through the journal. It returns the status
// comment's sentence about it ("" when nobody is to be asked). Evolution
// PRs are asked at release (pipeline/reviewers.go).
func (l *Lifecycle) askReview(ctx context.Context, c *github.Client, x *pr, rules branchrules.Rules, log *slog.Logger) string {
	if l.Effects == nil || (rules.Approvals == 0 && !rules.CodeOwners) {
		return ""
	}
	key := effects.ReviewKey(x.owner+"/"+x.name, x.GetNumber(), x.GetHead().GetSHA())
	it, ok, err := l.Effects.Proposal(ctx, key)
	if err != nil || !ok {
		if err != nil {
			log.Warn("proposed review request not read", "err", err)
		}
		return ""
	}
	asked, already, err := effects.RequestReview(ctx, l.Effects, effects.GitHub{C: c}, it)
	switch {
	case already:
		note, _ := l.Effects.Note(ctx, key)
		return note
	case err != nil:
		log.Warn("review request failed; asked again at the next evaluation or sweep", "err", err)
		return "Warden could not request review yet; it asks again."
	}
	note := asked.Sentence(x.owner, it.Source)
	if err := l.Effects.SetNote(ctx, key, note); err != nil {
		log.Warn("review request's note not kept", "err", err)
	}
	log.Info("review requested", "users", asked.Users, "teams", asked.Teams, "refused", asked.Refused)
	return note
}
