package lifecycle

import (
	"context"
	"log/slog"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/effects"
)

// settleTakeBacks ends a take-back (queue-off, automerge-off) that an
// earlier evaluation left pending, GitHub having answered it with an
// error, once nothing owes it any more. GitHub is read, not guessed:
//   - GitHub shows the binding gone (a push took the PR out of the queue and
//     its removal event was lost; a maintainer turned auto-merge off): the
//     take-back's goal holds, so it is confirmed and counted off;
//   - the binding stands but the PR is neither held nor busy: Warden's own
//     judgement to merge stands again, so the intent is dropped (the
//     binding stays counted, and a later hold takes it back anew).
//
// Otherwise branchWork's unbind asks GitHub again. Without this, no
// evaluation confirmed or dropped such an intent, and the sweeper
// re-evaluated the PR for as long as the journal kept it (soak seed 8002).
func (l *Lifecycle) settleTakeBacks(ctx context.Context, c *github.Client, x *pr, log *slog.Logger) error {
	owed, err := l.owedTakeBacks(ctx, x)
	if err != nil || len(owed) == 0 {
		return err
	}
	queued, auto, err := effects.GitHub{C: c}.Bindings(ctx, x.GetNodeID())
	if err != nil {
		// Nothing is settled on a guess: the intent stays pending for the
		// next evaluation or the sweeper. The evaluation goes on (a hold or
		// feedback takes the PR back again in branchWork), so a GitHub
		// without these fields (an older Enterprise Server) stops no merge.
		log.Warn("merge queue and auto-merge state not read; the take-back stays pending", "err", err)
		return nil
	}
	on := map[string]bool{"queue": queued, "automerge": auto}
	for _, what := range owed {
		key := effectKey(x, what+"-off", "")
		if on[what] {
			if !l.wantsTakeBack(ctx, x, log) {
				log.Info("take-back no longer owed: the PR is neither held nor busy", "binding", what)
				l.drop(ctx, key)
			}
			continue
		}
		log.Info("GitHub shows the PR taken back already", "binding", what)
		if err := l.takenBack(ctx, x, what, key); err != nil { // bind.go
			return err
		}
	}
	return nil
}

// owedTakeBacks lists the bindings whose take-back is pending in the journal.
func (l *Lifecycle) owedTakeBacks(ctx context.Context, x *pr) ([]string, error) {
	if l.Effects == nil {
		return nil, nil
	}
	var owed []string
	for _, what := range []string{"queue", "automerge"} {
		pending, err := l.Effects.Pending(ctx, effectKey(x, what+"-off", ""))
		if err != nil {
			return nil, err
		}
		if pending {
			owed = append(owed, what)
		}
	}
	return owed, nil
}

// wantsTakeBack: the PR is held, or busy with feedback or a run; an
// unreadable state wants it (fail closed: the take-back stays pending).
func (l *Lifecycle) wantsTakeBack(ctx context.Context, x *pr, log *slog.Logger) bool {
	if l.Followups == nil {
		return false
	}
	if l.held(ctx, x, log) {
		return true
	}
	busy, err := l.Followups.Busy(ctx, x.owner+"/"+x.name, x.GetNumber())
	return err != nil || busy
}
