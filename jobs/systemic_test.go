package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/warden-bot/warden/supervisor"
)

func TestFailureLogKeepsTheWindowAndResumeForgets(t *testing.T) {
	b := testBackend(t)
	ctx := context.Background()
	l := NewFailureLog(b.RDB)
	now := time.Now()
	if _, err := l.Record(ctx, supervisor.Failure{Task: "a#1", Fingerprint: "f", At: now.Add(-10 * time.Minute)}, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, err := l.Record(ctx, supervisor.Failure{Task: "a#2", Fingerprint: "g", At: now}, now.Add(-5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Task != "a#2" || got[0].Fingerprint != "g" {
		t.Fatalf("recent = %+v, want only a#2", got)
	}
	q := NewQueue(b)
	defer q.Close()
	if err := q.Resume(ctx, 0); err != nil {
		t.Fatal(err)
	}
	got, _ = l.Record(ctx, supervisor.Failure{Task: "a#3", At: now}, now.Add(-5*time.Minute))
	if len(got) != 1 || got[0].Task != "a#3" {
		t.Fatalf("after resume = %+v, want only a#3", got)
	}
}

func TestPausedIssuesRemembered(t *testing.T) {
	b := testBackend(t)
	ctx := context.Background()
	p := NewPausedIssues(b.RDB)
	if n, err := p.Get(ctx, "acme/calc"); err != nil || n != 0 {
		t.Fatalf("unset = %d %v", n, err)
	}
	if err := p.Set(ctx, "acme/calc", 17); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.Get(ctx, "acme/calc"); n != 17 {
		t.Fatalf("got %d, want 17", n)
	}
}
