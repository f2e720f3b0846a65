package followup

import (
	"context"
	"testing"
	"time"
)

// A `/warden retry` hands back only the pushes made before it was written:
// a late or redelivered copy of an older retry leaves a newer push's hold
// (the interleaving test's seed 249 merged over such a push before this).
func TestRetryReleasesOnlyPushesBeforeIt(t *testing.T) {
	s, ctx := store(t), context.Background()
	const repo = "hold/Release"
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	if fresh, _ := s.HoldSince(ctx, repo, 9, "bob", t0); !fresh {
		t.Fatal("first hold not fresh")
	}
	if fresh, _ := s.HoldSince(ctx, repo, 9, "bob", t0.Add(time.Minute)); fresh {
		t.Fatal("a second push's hold said fresh: the notice would be posted twice")
	}
	if ok, _ := s.ReleaseIfBefore(ctx, repo, 1, 9, t0.Add(30*time.Second)); ok {
		t.Fatal("a retry written between two pushes released the hold of the second")
	}
	if by, _ := s.Held(ctx, repo, 9); by != "bob" {
		t.Fatalf("held by %q after a stale retry, want bob", by)
	}
	if ok, _ := s.ReleaseIfBefore(ctx, repo, 1, 9, t0.Add(2*time.Minute)); !ok {
		t.Fatal("a retry written after the last push did not release the hold")
	}
	if by, _ := s.Held(ctx, repo, 9); by != "" {
		t.Fatalf("still held by %q", by)
	}
	// A new hold starts from its own push, not the released one's time.
	_, _ = s.HoldSince(ctx, repo, 9, "carol", t0.Add(3*time.Minute))
	if ok, _ := s.ReleaseIfBefore(ctx, repo, 1, 9, t0.Add(4*time.Minute)); !ok {
		t.Fatal("a retry after the new push did not release it")
	}
}

// #38 (3): a release owes its hand-back until it is queued; a new hold
// does not erase what the earlier release owes.
func TestReleaseOwesTheHandBack(t *testing.T) {
	s, ctx := store(t), context.Background()
	const repo = "hold/HandBack"
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	_, _ = s.HoldSince(ctx, repo, 9, "bob", t0)
	if owed, _ := s.HandBackOwed(ctx, repo, 9); owed {
		t.Fatal("a hand-back owed before any retry")
	}
	if ok, _ := s.ReleaseIfBefore(ctx, repo, 1, 9, t0.Add(time.Minute)); !ok {
		t.Fatal("not released")
	}
	if owed, _ := s.HandBackOwed(ctx, repo, 9); !owed {
		t.Fatal("a release left no hand-back owed: a delivery dying now loses it")
	}
	if err := s.HandedBack(ctx, repo, 9); err != nil {
		t.Fatal(err)
	}
	if owed, _ := s.HandBackOwed(ctx, repo, 9); owed {
		t.Fatal("hand-back still owed after HandedBack")
	}
}
