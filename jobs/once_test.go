package jobs

import (
	"context"
	"testing"
)

// A status update queued twice for one delivery (its redelivery after an
// ambiguous 503) is queued once; other deliveries and direct calls are not
// deduplicated.
func TestEnqueueOncePerDelivery(t *testing.T) {
	b := testBackend(t)
	q := NewQueue(b)
	t.Cleanup(func() { q.Close() })
	st := StatusPayload{Repo: "acme/calc", Issue: 4, State: "status"}
	d1 := WithDelivery(context.Background(), "d-1")
	for _, ctx := range []context.Context{d1, d1, WithDelivery(context.Background(), "d-2"), context.Background(), context.Background()} {
		if err := q.EnqueueStatus(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	info, err := q.Inspector().GetQueueInfo(QueueCritical)
	if err != nil {
		t.Fatal(err)
	}
	if info.Pending != 4 {
		t.Fatalf("pending status tasks = %d, want 4 (d-1 once, d-2, two without a delivery)", info.Pending)
	}
}
