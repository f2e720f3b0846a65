package githubapp

import (
	"testing"
	"time"
)

// The cache holds only answers younger than its ttl: every user who ever
// commented would otherwise stay in memory for the process's life (#31).
// Forget drops one user's answers in one installation, case-blind, as a
// member event names them.
func TestPermissionCachePrunesAndForgets(t *testing.T) {
	now := time.Unix(1000, 0)
	p := &PermissionCache{ttl: 30 * time.Second, now: func() time.Time { return now }, answers: map[string]permAnswer{
		"1/o/r/old":   {perm: "write", at: now.Add(-31 * time.Second)},
		"1/o/r/alice": {perm: "write", at: now.Add(-time.Second)},
		"2/o/r/alice": {perm: "write", at: now.Add(-time.Second)},
		"1/o/r/bob":   {perm: "read", at: now},
	}}
	p.prune()
	if _, ok := p.answers["1/o/r/old"]; ok || len(p.answers) != 3 {
		t.Fatalf("after prune: %v, want the expired answer gone and the rest kept", p.answers)
	}
	p.Forget(1, "ALICE")
	if _, ok := p.answers["1/o/r/alice"]; ok {
		t.Fatal("Forget kept the named user's answer")
	}
	if _, ok := p.answers["2/o/r/alice"]; !ok {
		t.Fatal("Forget dropped the user's answer in another installation")
	}
	if _, ok := p.answers["1/o/r/bob"]; !ok {
		t.Fatal("Forget dropped another user's answer")
	}
}
