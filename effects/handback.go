package effects

import "fmt"

// KindHandBack is the journal kind of a released hold's hand-back: the
// work a writer's `/warden retry` owes (the follow-up of waiting feedback,
// else a PR evaluation). GitHub does not redeliver a failed webhook by
// itself, so an owed hand-back is re-driven by the sweep, not by a
// redelivery. The intent is begun before the hold is lifted (followup's
// ReleaseIfBefore): whenever the hand-back is owed, the intent exists.
const KindHandBack = "handback"

// HandBackKey is the idempotency key of PR n's hand-back: one owed at a
// time per PR, as the hold is one. Its form is the lifecycle's for an
// effect without a head ("kind:repo#n:").
func HandBackKey(repo string, n int) string {
	return fmt.Sprintf("%s:%s#%d:", KindHandBack, repo, n)
}

// HandBackIntent is the intent to hand PR n of repo back to Warden.
func HandBackIntent(repo string, installation int64, n int) Intent {
	return Intent{Key: HandBackKey(repo, n), Kind: KindHandBack, Repo: repo, Installation: installation, PR: n}
}
