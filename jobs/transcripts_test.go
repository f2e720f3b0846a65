package jobs

import (
	"context"
	"strings"
	"testing"
)

func TestTranscriptsKeptPerAttempt(t *testing.T) {
	b := testBackend(t)
	ts, ctx := NewTranscripts(b.RDB), context.Background()
	if _, ok, err := ts.Get(ctx, "acme/calc", 7, 1); ok || err != nil {
		t.Fatalf("a transcript before any was put: %v %v", ok, err)
	}
	if err := ts.Put(ctx, "acme/calc", 7, 1, "first"); err != nil {
		t.Fatal(err)
	}
	if err := ts.Put(ctx, "acme/calc", 7, 2, strings.Repeat("x", maxTranscript+10)); err != nil {
		t.Fatal(err)
	}
	one, ok, err := ts.Get(ctx, "acme/calc", 7, 1)
	if !ok || err != nil || one != "first" {
		t.Fatalf("attempt 1: %q %v %v", one, ok, err)
	}
	two, _, _ := ts.Get(ctx, "acme/calc", 7, 2)
	if len(two) > maxTranscript+20 || !strings.HasSuffix(two, "[… cut …]") {
		t.Errorf("a long transcript is not bounded: %d", len(two))
	}
	if ttl := b.RDB.TTL(ctx, transcriptKey("acme/calc", 7, 1)).Val(); ttl <= 0 {
		t.Errorf("no expiry: %v", ttl)
	}
	if p := TranscriptPath("acme/calc", 7, 2); p != "/ui/transcript/acme/calc/7/2" {
		t.Errorf("path %s", p)
	}
}
