package jobs

import (
	"context"
	"testing"
)

func TestInterventionsUntilAMaintainerAsksAgain(t *testing.T) {
	b := testBackend(t)
	ctx := context.Background()
	needs := NewInterventions(b.RDB)
	q := NewQueue(b)
	defer q.Close()
	for _, n := range []int{1, 2} {
		if err := needs.Mark(ctx, Intervention{Repo: "acme/calc", Issue: n, Reason: "restart intensity exceeded"}); err != nil {
			t.Fatal(err)
		}
	}
	if l, err := needs.List(ctx); err != nil || len(l) != 2 || l[0].Issue != 1 {
		t.Fatalf("list = %+v %v", l, err)
	}
	// A deferred follow-up is not a maintainer's reset; a retry is.
	p := payload(1)
	p.Reason = ReasonDeferred
	if _, err := q.EnqueueRun(ctx, p); err != nil {
		t.Fatal(err)
	}
	if l, _ := needs.List(ctx); len(l) != 2 {
		t.Fatalf("a deferred run reset the intervention: %+v", l)
	}
	p = payload(2)
	p.Reason = ReasonRetry
	if _, err := q.EnqueueRun(ctx, p); err != nil {
		t.Fatal(err)
	}
	if l, _ := needs.List(ctx); len(l) != 1 || l[0].Issue != 1 {
		t.Fatalf("after retry of #2 = %+v", l)
	}
	if was, _ := needs.Reset(ctx, "acme/calc", 1); !was {
		t.Fatal("reset of a listed task said it was not listed")
	}
}
