package jobs

import (
	"context"
	"testing"
)

// The memo answers the last status comment written on an issue, per issue,
// until forgotten.
func TestStatusMemo(t *testing.T) {
	m := NewStatusMemo(testBackend(t).RDB)
	ctx := context.Background()
	if _, _, ok := m.Last(ctx, "acme/calc", 7); ok {
		t.Fatal("a memo before any write")
	}
	m.Wrote(ctx, "acme/calc", 7, 1003, "<!-- warden:status -->\nfirst")
	m.Wrote(ctx, "acme/calc", 7, 1003, "<!-- warden:status -->\nsecond")
	m.Wrote(ctx, "acme/calc", 8, 2001, "<!-- warden:status -->\nother")
	if id, body, ok := m.Last(ctx, "acme/calc", 7); !ok || id != 1003 || body != "<!-- warden:status -->\nsecond" {
		t.Fatalf("memo %d %q %v", id, body, ok)
	}
	m.Forget(ctx, "acme/calc", 7)
	if _, _, ok := m.Last(ctx, "acme/calc", 7); ok {
		t.Fatal("forgotten memo still answered")
	}
	if id, _, ok := m.Last(ctx, "acme/calc", 8); !ok || id != 2001 {
		t.Fatal("another issue's memo was lost")
	}
}
